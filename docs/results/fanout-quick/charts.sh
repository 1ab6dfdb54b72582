#!/usr/bin/env bash
# README's picture: the committed fan-out report's "Per variant over time" charts (report.html beside this script), as
# Debian's chromium draws them, taken with the Playwright the browser tests use (its driver ships with the test build).
#   dotnet build tests/ConcurrencySandbox.LoadTests.Tests && docs/results/fanout-quick/charts.sh
# Writes charts.png beside it (about 1,000 px wide, under 200 KB).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
playwright="$root/tests/ConcurrencySandbox.LoadTests.Tests/bin/Debug/net10.0/.playwright"
[ -d "$playwright/package" ] || { echo "build the tests first: dotnet build tests/ConcurrencySandbox.LoadTests.Tests" >&2; exit 2; }
[ -x /usr/bin/chromium ] || { echo "install Debian's chromium (apt-get install chromium)" >&2; exit 2; }
"$playwright/node/linux-x64/node" - "$playwright/package" "$here/report.html" "$here/charts.png" <<'JS'
const [playwright, page, png] = process.argv.slice(2);
const { chromium } = require(playwright);
(async () => {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  const tab = await browser.newPage({ viewport: { width: 1040, height: 900 } });
  await tab.goto(`file://${page}`);
  await tab.waitForFunction(() => window.Charts && document.querySelectorAll(".chart").length === Charts.instances.length);
  // The first two variants' panels (threadpool starving, sync-over-async): the picture README describes.
  const chart = tab.locator('.chart[data-chart="variantPanels"]');
  const box = await chart.boundingBox();
  const plots = await chart.locator(".chart-plot").evaluateAll(els => els.map(e => e.getBoundingClientRect().bottom + window.scrollY));
  await tab.screenshot({ path: png, fullPage: true, clip: { x: box.x, y: box.y, width: box.width, height: plots[2] - box.y } });
  await browser.close();
})();
JS
ls -l "$here/charts.png"
