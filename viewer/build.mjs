// viewer/build.mjs OUTDIR: bundles src/main.js (and the CSS it imports)
// into OUTDIR/viewer.js and OUTDIR/viewer.css with esbuild, from the
// packages `npm ci` installed in viewer/node_modules (no network).  The
// licences of the packages bundled into the page head viewer.js, so every
// page carries them (NOTICE lists them all).  `diagc view` inlines both
// files into <script> and <style>: neither may hold "</script" or "</style".
import { build } from "esbuild";
import { readFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] && resolve(process.argv[2]);
if (!out) {
  console.error("usage: node viewer/build.mjs OUTDIR");
  process.exit(2);
}
// the packages whose code the page holds (not esbuild, not playwright-core)
const BUNDLED = ["@dagrejs/dagre", "@dagrejs/graphlib", "uplot", "three"];
const licences = BUNDLED.map((p) => {
  const pkg = JSON.parse(readFileSync(join(here, "node_modules", p, "package.json"), "utf8"));
  const text = readFileSync(join(here, "node_modules", p, "LICENSE"), "utf8").trim();
  return `${pkg.name} ${pkg.version} (${pkg.license}):\n${text}`;
});
const banner = "/*! diagc viewer (docs/viewer.md). It bundles:\n\n" +
  licences.join("\n\n").replace(/\*\//g, "* /") + "\n*/";
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, "src", "main.js")],
  bundle: true, minify: true, format: "iife", target: "es2019",
  outfile: join(out, "viewer.js"), legalComments: "none", banner: { js: banner },
  absWorkingDir: here, logLevel: "warning",
});
for (const [f, tag] of [["viewer.js", "</script"], ["viewer.css", "</style"]]) {
  const text = readFileSync(join(out, f), "utf8");
  if (text.toLowerCase().includes(tag)) {
    console.error(`viewer/build.mjs: ${f} holds "${tag}", which would end the page's element early`);
    process.exit(1);
  }
}
