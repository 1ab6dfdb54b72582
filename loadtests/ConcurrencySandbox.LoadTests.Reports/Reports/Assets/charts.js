/*
 * The interactive charts of report.html and the runner's live page, drawn with uPlot (vendored beside this file, MIT,
 * uPlot.LICENSE). Every chart is drawn from a JSON model the runner writes (Reports/ChartModels.cs), handed in by report.html's
 * template (Assets/report.html) or the live page; nothing is fetched.
 *   Charts.responseCurve(el, model) -> { update(model) }   latency (p50, p99) and throughput against the offered load
 *   Charts.timeSeries(el, model)    -> { update(model) }   series against seconds since each variant started
 *   Charts.tiles(el, tiles)         -> el                  the first screen's tiles, one per variant: [{ name, color, figures: [{ label, value }] }]
 * Hover shows every series' value at the cursor (the legend under each plot; charts.css hides its values otherwise), dragging across a plot zooms its x axis
 * (double-click resets), the variant buttons show or hide all of a variant's series, a legend entry one series.
 * Timed-out requests are drawn as hollow up-triangles at the time they were given up after: a lower bound, never a latency.
 */
(function (global) {
  "use strict";

  const instances = [];
  let nextSyncKey = 0;

  function formatMs(v) {
    if (v == null || Number.isNaN(v)) {
      return "no answer";
    }
    return v >= 1000 ? `${+(v / 1000).toPrecision(3)} s` : `${+v.toPrecision(3)} ms`;
  }

  function formatNumber(v, unit) {
    return v == null || Number.isNaN(v) ? "--" : `${+v.toPrecision(4)}${unit ? " " + unit : ""}`;
  }

  function plotWidth(el) {
    return Math.max(320, Math.min(1000, (el.clientWidth || 1000) - 10));
  }

  /** A points path builder drawing each point as an up-triangle (a lower bound), a square (a step that broke the SLO) or a diamond (a knee). */
  function shapedPoints(shape) {
    return (u, seriesIdx, idx0, idx1) => {
      const series = u.series[seriesIdx];
      const xs = u.data[0];
      const ys = u.data[seriesIdx];
      const r = (series.points.size * uPlot.pxRatio) / 2;
      const path = new Path2D();
      for (let i = idx0; i <= idx1; i++) {
        if (ys[i] == null) {
          continue;
        }
        const x = u.valToPos(xs[i], "x", true);
        const y = u.valToPos(ys[i], series.scale, true);
        if (shape === "triangle") {
          path.moveTo(x, y - r);
          path.lineTo(x + r, y + r * 0.8);
          path.lineTo(x - r, y + r * 0.8);
        } else if (shape === "square") {
          path.rect(x - r * 0.8, y - r * 0.8, r * 1.6, r * 1.6);
        } else {
          path.moveTo(x, y - r);
          path.lineTo(x + r, y);
          path.lineTo(x, y + r);
          path.lineTo(x - r, y);
        }
        path.closePath();
      }
      return { stroke: path, fill: path };
    };
  }

  /** Every x of every variant, sorted, and each variant's values at them (undefined where a variant has no point: spanned, not a gap). */
  function align(groups) {
    const xs = [...new Set(groups.flatMap(g => g.xs))].sort((a, b) => a - b);
    const at = new Map(xs.map((x, i) => [x, i]));
    const columns = groups.flatMap(g => g.columns.map(values => {
      const column = new Array(xs.length).fill(undefined);
      g.xs.forEach((x, i) => { column[at.get(x)] = values[i]; });
      return column;
    }));
    return [xs, ...columns];
  }

  function positiveOrNull(v) {
    return v == null || !(v > 0) ? null : v;
  }

  /** A group of uPlot plots sharing a cursor, an x zoom and one row of variant buttons. */
  class Chart {
    constructor(el, model, build) {
      this.el = el;
      this.build = build;
      this.plots = [];
      this.hidden = new Set();
      this.syncKey = `charts-${nextSyncKey++}`;
      this.draw(model);
      instances.push(this);
    }

    draw(model) {
      this.model = model;
      this.plots.forEach(p => p.destroy());
      this.el.replaceChildren();
      if (model.title) {
        const title = document.createElement("div");
        title.className = "chart-title";
        title.textContent = model.title;
        this.el.append(title);
      }
      const buttons = document.createElement("div");
      buttons.className = "chart-variants";
      this.el.append(buttons);
      const specs = this.build(model);
      this.plots = specs.map(spec => this.plot(spec));
      for (const variant of model.variants) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "chart-variant";
        button.dataset.variant = variant.name;
        button.style.borderColor = variant.color;
        button.textContent = variant.name;
        button.setAttribute("aria-pressed", String(!this.hidden.has(variant.name)));
        button.addEventListener("click", () => this.toggle(variant.name));
        buttons.append(button);
        if (this.hidden.has(variant.name)) {
          this.show(variant.name, false);
        }
      }
      this.signature = JSON.stringify(specs.map(s => s.series.map(x => x.label)));
    }

    plot(spec) {
      const self = this;
      const holder = document.createElement("div");
      holder.className = "chart-plot";
      this.el.append(holder);
      const options = {
        title: spec.title,
        width: plotWidth(this.el),
        height: spec.height || 300,
        scales: { x: { time: false }, y: spec.log ? { distr: 3 } : { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [
          { label: spec.xLabel, values: spec.xValues },
          { label: spec.yLabel, size: 70, values: (u, ticks) => ticks.map(v => (v == null ? "" : spec.yFormat(v))) },
        ],
        series: [{ label: spec.xLabel, value: spec.xLegend }, ...spec.series],
        cursor: { sync: { key: this.syncKey }, drag: { x: true, y: false } },
        legend: { live: true },
        hooks: {
          setScale: [(u, key) => {
            if (key !== "x" || self.syncing) {
              return;
            }
            self.syncing = true;
            for (const other of self.plots) {
              if (other !== u) {
                other.setScale("x", { min: u.scales.x.min, max: u.scales.x.max });
              }
            }
            self.syncing = false;
          }],
        },
      };
      const plot = new uPlot(options, spec.data, holder);
      plot.variantOf = [null, ...spec.series.map(s => s.variant)];
      return plot;
    }

    toggle(name) {
      const show = this.hidden.has(name);
      if (show) {
        this.hidden.delete(name);
      } else {
        this.hidden.add(name);
      }
      this.show(name, show);
      const button = this.el.querySelector(`button.chart-variant[data-variant="${CSS.escape(name)}"]`);
      if (button) {
        button.setAttribute("aria-pressed", String(show));
      }
    }

    show(name, show) {
      for (const plot of this.plots) {
        plot.variantOf.forEach((variant, i) => {
          if (variant === name) {
            plot.setSeries(i, { show });
          }
        });
      }
    }

    /** New figures: redrawn in place when the same series are drawn, rebuilt when a variant or series appeared. */
    update(model) {
      const specs = this.build(model);
      if (JSON.stringify(specs.map(s => s.series.map(x => x.label))) !== this.signature) {
        this.draw(model);
        return;
      }
      this.model = model;
      specs.forEach((spec, i) => this.plots[i].setData(spec.data));
    }
  }

  /**
   * The response curve: latency against the offered load (log), then throughput against it; knees as diamonds. A
   * capacity search's curve marks each step that broke the SLO (a filled square; the others held) and draws the SLO.
   */
  function responseCurvePlots(model) {
    const groups = model.variants.map(v => ({ xs: v.points.map(p => p.load), v, latency: [], throughput: [] }));
    const kneeAt = (v, value) => v.points.map((p, i) => (v.knee && v.knee.index === i ? value(p) : null));
    const pointOf = (v, u, i) => v.points.find(p => p.load === u.data[0][i]);
    const latencySeries = [];
    const throughputSeries = [];
    for (const g of groups) {
      const v = g.v;
      latencySeries.push(
        { label: `${v.name} p99`, variant: v.name, stroke: v.color, width: 2, value: (u, y, s, i) => (i == null ? "--" : formatMs(y)) },
        { label: `${v.name} p50`, variant: v.name, stroke: v.color, width: 1.5, dash: [6, 4], value: (u, y, s, i) => (i == null ? "--" : formatMs(y)) },
        {
          label: `${v.name} timed out (at least)`, variant: v.name, stroke: v.color, paths: () => null,
          points: { show: true, size: 12, width: 2, fill: "#ffffff", paths: shapedPoints("triangle") },
          value: (u, y, s, i) => {
            const p = i == null ? null : pointOf(v, u, i);
            return p && p.sentTimedOut > 0 ? `\u2265 ${formatMs(p.timedOutAtLeastMs)} (${p.sentTimedOut} timed out)` : "--";
          },
        },
        {
          label: `${v.name} knee`, variant: v.name, stroke: "#000000", paths: () => null,
          points: { show: true, size: 14, width: 1.5, fill: v.color, paths: shapedPoints("diamond") },
          value: (u, y) => (y == null ? "--" : v.knee.reason),
        });
      g.latency.push(
        v.points.map(p => positiveOrNull(p.p99Ms)),
        v.points.map(p => positiveOrNull(p.p50Ms)),
        v.points.map(p => (p.sentTimedOut > 0 ? positiveOrNull(p.timedOutAtLeastMs) : null)),
        kneeAt(v, p => positiveOrNull(p.p99Ms) ?? positiveOrNull(p.timedOutAtLeastMs)));
      if (v.broke) {
        latencySeries.push({
          label: `${v.name} broke the SLO`, variant: v.name, stroke: "#000000", paths: () => null,
          points: { show: true, size: 12, width: 1.5, fill: v.color, paths: shapedPoints("square") },
          value: (u, y, s, i) => (y == null ? "--" : v.broke[v.points.indexOf(pointOf(v, u, i))]),
        });
        g.latency.push(v.points.map((p, i) => (v.broke[i] == null ? null : positiveOrNull(p.p99Ms) ?? positiveOrNull(p.timedOutAtLeastMs) ?? model.sloMs)));
      }
      throughputSeries.push(
        { label: `${v.name} ok/s`, variant: v.name, stroke: v.color, width: 2, points: { show: true, size: 6 }, value: (u, y) => formatNumber(y, "/s") },
        {
          label: `${v.name} knee`, variant: v.name, stroke: "#000000", paths: () => null,
          points: { show: true, size: 14, width: 1.5, fill: v.color, paths: shapedPoints("diamond") },
          value: (u, y) => (y == null ? "--" : v.knee.reason),
        });
      g.throughput.push(v.points.map(p => p.okPerSecond), kneeAt(v, p => p.okPerSecond));
    }
    const xLegend = (u, x) => formatNumber(x, model.loadUnit);
    const latencyGroups = groups.map(g => ({ xs: g.xs, columns: g.latency }));
    if (model.sloMs != null) {
      // The SLO across every load measured, so a point above the line broke it.
      const xs = [...new Set(groups.flatMap(g => g.xs))];
      latencySeries.push({ label: `SLO: p99 \u2264 ${formatMs(model.sloMs)}`, stroke: "#555555", width: 1.5, dash: [2, 4], value: () => formatMs(model.sloMs) });
      latencyGroups.push({ xs, columns: [xs.map(() => model.sloMs)] });
    }
    const latencyData = align(latencyGroups);
    const throughputData = align(groups.map(g => ({ xs: g.xs, columns: g.throughput })));
    return [
      {
        title: "Latency against the offered load: p99 solid, p50 dashed (log scale); \u25b3 timed out (a lower bound); \u25c6 knee",
        xLabel: model.loadLabel, xLegend, yLabel: "latency", yFormat: formatMs, log: true, height: 320, series: latencySeries, data: latencyData,
      },
      {
        title: "Throughput against the offered load: ok answers per second; \u25c6 knee",
        xLabel: model.loadLabel, xLegend, yLabel: "ok answers / s", yFormat: v => formatNumber(v), height: 240, series: throughputSeries, data: throughputData,
      },
    ];
  }

  /** One plot: every variant's series against seconds since it started (variants run one after another, drawn over each other). */
  function timeSeriesPlots(model) {
    const yFormat = model.unit === "ms" ? formatMs : v => formatNumber(v, model.unit);
    const series = model.series.map(s => ({
      label: s.name, variant: s.variant, stroke: s.color, width: s.dashed ? 1.5 : 2, dash: s.dashed ? [6, 4] : undefined,
      value: (u, y) => (y == null ? "--" : yFormat(y)),
    }));
    const data = align(model.series.map(s => ({
      xs: s.points.map(p => p[0]),
      columns: [s.points.map(p => (model.log ? positiveOrNull(p[1]) : p[1]))],
    })));
    return [{
      title: model.panelTitle, xLabel: model.xLabel, xLegend: (u, x) => formatNumber(x, "s"), yLabel: model.yLabel, yFormat, log: model.log, height: 340, series, data,
    }];
  }

  /**
   * The first screen's tiles into el (its old ones replaced): per variant its name over its colour, then each figure's
   * label and value, each on one line (charts.css). report.html draws the summary's (Reports/ReportWriter.cs); the live
   * page the run's so far, then the summary's once the run ends.
   */
  function tiles(el, list) {
    el.classList.add("tiles");
    el.replaceChildren(...list.map(tile => {
      const section = document.createElement("section");
      section.className = "tile";
      section.dataset.variant = tile.name;
      section.style.borderTopColor = tile.color;
      const name = document.createElement("h3");
      name.textContent = tile.name;
      const figures = document.createElement("dl");
      for (const figure of tile.figures) {
        const label = document.createElement("dt");
        label.textContent = figure.label;
        const value = document.createElement("dd");
        value.textContent = figure.value;
        figures.append(label, value);
      }
      section.append(name, figures);
      return section;
    }));
    return el;
  }

  const kinds = {
    responseCurve: (el, model) => new Chart(el, model, responseCurvePlots),
    timeSeries: (el, model) => new Chart(el, model, timeSeriesPlots),
  };

  global.Charts = { responseCurve: kinds.responseCurve, timeSeries: kinds.timeSeries, tiles, instances };
})(window);
