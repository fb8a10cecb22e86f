// run_data.js: the page's run (cli/page.lua) as the views read it: each
// column after t comes as the base64 of its little-endian doubles
// (cli/pack.lua), every bit of what diagc run computed; decoded here into
// arrays of numbers with null for an empty cell (a logger of another
// period), as plots.js and world_pose.js take them.
export function unpackRun(run) {
  run.values = run.values.map((v) => {
    if (typeof v !== "string") return v;
    const bytes = atob(v), n = bytes.length >> 3;
    const buf = new DataView(new ArrayBuffer(bytes.length));
    for (let i = 0; i < bytes.length; i++) buf.setUint8(i, bytes.charCodeAt(i));
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const x = buf.getFloat64(8 * i, true);
      out[i] = Number.isFinite(x) ? x : null; // NaN, an infinity: null, as JSON had them
    }
    return out;
  });
  return run;
}
