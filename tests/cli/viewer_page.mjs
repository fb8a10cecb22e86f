// tests/cli/viewer_page.mjs: what the browser tests of `diagc view` pages
// (viewer_browser.mjs, viewer_world.mjs, viewer_firings.mjs) share:
// headless Chromium (Debian's /usr/bin/chromium, or $CHROMIUM) with every
// way to the network closed, and a page in an offline context whose
// requests other than file: and data: URLs and whose script errors are
// collected, so that each test can assert there were none.
const NO_NETWORK = ["--no-sandbox", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND"];

// webgl: render WebGL without a GPU (SwiftShader, which headless Chromium
// asks to be named); else the GPU is off.
export function launch(chromium, { webgl = false } = {}) {
  const gpu = webgl ? ["--enable-unsafe-swiftshader", "--use-angle=swiftshader"] : ["--disable-gpu"];
  return chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: [...gpu, ...NO_NETWORK] });
}

// A new page, 1400 x 1000, offline; requests: the URLs it asked for beyond
// file: and data:, errors: page errors and console errors.
export async function watchedPage(browser) {
  const context = await browser.newContext({ offline: true, viewport: { width: 1400, height: 1000 } });
  const p = await context.newPage();
  const requests = [], errors = [];
  p.on("request", (r) => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) requests.push(r.url()); });
  p.on("pageerror", (e) => errors.push(String(e)));
  p.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  return { p, requests, errors };
}
