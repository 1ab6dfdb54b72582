/*
 * The interactive charts of report.html and the runner's live page, drawn with uPlot (vendored beside this file, MIT,
 * uPlot.LICENSE). Every chart is drawn from a JSON model the runner writes (Reports/ChartModels.cs), handed in by report.html's
 * template (Assets/report.html) or the live page; nothing is fetched.
 *   Charts.responseCurve(el, model[, summary]) -> { update(model) }   latency (p50, p99) and throughput against the offered
 *                                                          load, from the report's summary when given one (model: { title, variants })
 *   Charts.timeSeries(el, model)    -> { update(model) }   series against seconds since each variant started
 *   Charts.latencyOverTime(el, { title }, summary)         the report's every variant's p50 and p99 per interval on one time axis
 *   Charts.variantPanels(el, summary)                      per variant, on shared scales: latency and requests by outcome per
 *                                                          interval (a burst's completion timeline and completion curve), the
 *                                                          API's pool threads and queue with the observer's adjustments; the load
 *   Charts.distribution(el, model)                         latency (log) against the percentile on a "nines" axis, lower bounds dashed
 *   Charts.bars(el, model)                                 an experiment's evidence: a bar per variant, the seed's figures as lines
 *   Charts.efficiency(el, model)                           the matrix's Task.Run efficiency against cycles per core count
 *   Charts.tiles(el, tiles)         -> el                  the first screen's tiles, one per variant: [{ name, color, figures: [{ label, value }] }]
 * The report's curve, variantPanels, latencyOverTime and latency distribution read the run's summary.json as injected
 * (RunSummary); the others a model the runner wrote from it (Reports/ChartModels.cs, Matrix/EfficiencyModel.cs).
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

  /**
   * A points path builder drawing each point as an up-triangle (a lower bound), a square (a step that broke the SLO), a
   * diamond (a knee), or for the pool's adjustments a down-triangle, a cross, a plus or a circle.
   */
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
        } else if (shape === "triangleDown") {
          path.moveTo(x, y + r);
          path.lineTo(x + r, y - r * 0.8);
          path.lineTo(x - r, y - r * 0.8);
        } else if (shape === "square") {
          path.rect(x - r * 0.8, y - r * 0.8, r * 1.6, r * 1.6);
        } else if (shape === "cross" || shape === "plus") {
          const [dx, dy] = shape === "cross" ? [r * 0.8, r * 0.8] : [r, 0];
          path.moveTo(x - dx, y - dy);
          path.lineTo(x + dx, y + dy);
          path.moveTo(x + dy, y - dx);
          path.lineTo(x - dy, y + dx);
          continue;
        } else if (shape === "circle") {
          path.moveTo(x + r, y);
          path.arc(x, y, r, 0, 2 * Math.PI);
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
    if (groups.length === 1) {
      return [groups[0].xs, ...groups[0].columns];
    }
    const xs = [...new Set(groups.flatMap(g => g.xs))].sort((a, b) => a - b);
    const at = new Map(xs.map((x, i) => [x, i]));
    const columns = groups.flatMap(g => g.columns.map(values => {
      const column = new Array(xs.length).fill(undefined);
      g.xs.forEach((x, i) => { column[at.get(x)] = values[i]; });
      return column;
    }));
    return [xs, ...columns];
  }

  /** An interval's requests that got an answer (SummaryInterval.Completed): those with a latency. */
  function completedOf(i) {
    return i.ok + i.httpErrors;
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
        scales: {
          x: { time: false, distr: spec.xLog ? 3 : 1, range: spec.xRange && (() => spec.xRange) },
          y: spec.log ? { distr: 3, range: spec.yRange && (() => uPlot.rangeLog(spec.yRange[0], spec.yRange[1], 10, true)) }
            : { range: spec.yRange ? () => spec.yRange : (u, min, max) => [0, max > 0 ? max * 1.1 : 1] },
          ...(spec.y2 ? { y2: { range: () => spec.y2.range } } : {}),
        },
        axes: [
          { label: spec.xLabel, values: spec.xValues, splits: spec.xSplits },
          { label: spec.yLabel, size: 70, values: (u, ticks) => ticks.map(v => (v == null ? "" : spec.yFormat(v))) },
          ...(spec.y2 ? [{ scale: "y2", side: 1, label: spec.y2.label, size: 80, grid: { show: false }, values: (u, ticks) => ticks.map(v => formatNumber(v)) }] : []),
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
    const xLegend = (u, x) => formatNumber(x, loadUnit(model.loadUnit));
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
        xLabel: loadLabel(model.loadUnit), xLegend, yLabel: "latency", yFormat: formatMs, log: true, height: 320, series: latencySeries, data: latencyData,
      },
      {
        title: "Throughput against the offered load: ok answers per second; \u25c6 knee",
        xLabel: loadLabel(model.loadUnit), xLegend, yLabel: "ok answers / s", yFormat: v => formatNumber(v), height: 240, series: throughputSeries, data: throughputData,
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
   * The response curve's model from the report's summary (RunSummary): a capacity search's steps per ramp in load order,
   * each held or broke, with the SLO; else each curved variant's points and knee (of model.variants only, when named).
   */
  function curveOf(model, summary) {
    const variants = summary.variants.filter(v => !model.variants || model.variants.includes(v.name));
    const curve = { title: model.title, loadUnit: variants[0].loadUnit };
    const steps = (summary.capacity && summary.capacity.steps) || [];
    if (steps.length === 0) {
      return { ...curve, variants: variants.filter(v => v.curve).map(v => ({ name: v.name, color: v.color, points: v.curve.points, knee: v.curve.knee && { index: v.curve.knee.point, reason: v.curve.knee.reason } })) };
    }
    return { ...curve, sloMs: summary.capacity.sloP99Ms, variants: [...new Set(steps.map(s => s.ramp))].map((ramp, i) => {
      const ramped = steps.filter(s => s.ramp === ramp).sort((a, b) => a.load - b.load);
      return {
        name: ramp, color: i === 0 ? variants[0].color : loadColor, broke: ramped.map(s => s.brokeBecause ?? null),
        points: ramped.map(s => ({ load: s.load, p50Ms: s.p50Ms, p99Ms: s.p99Ms, okPerSecond: s.okPerSecond, answered: s.answered, sentTimedOut: s.timedOut })),
      };
    }) };
  }

  /** The report's every variant on one time axis from its summary: p99 solid, p50 dashed per interval; an interval without an answer a gap. */
  function latencyOverTime(model, summary) {
    const at = (v, value) => v.intervals.map(i => [i.elapsedSeconds, completedOf(i) > 0 ? value(i) : null]);
    return {
      title: model.title, panelTitle: "Every variant's latency per interval on one time axis: p99 solid, p50 dashed (log scale)",
      xLabel: "seconds since the variant started (variants run one after another)", yLabel: "latency", unit: "ms", log: true,
      variants: summary.variants,
      series: summary.variants.flatMap(v => [
        { name: `${v.name} p99`, variant: v.name, color: v.color, dashed: false, points: at(v, i => i.p99Ms) },
        { name: `${v.name} p50`, variant: v.name, color: v.color, dashed: true, points: at(v, i => i.p50Ms) },
      ]),
    };
  }

  /** The most of numbers (0 for none), without spreading a long array into arguments. */
  function most(values) {
    return values.reduce((m, v) => (v > m ? v : m), 0);
  }

  /** A value's series: stroked in its colour, a line unless told otherwise; its legend shows the value as formatted. */
  function line(label, variant, color, format, options) {
    return { label, variant, stroke: color, width: 2, value: (u, y) => (y == null ? "--" : format(y)), ...options };
  }

  /** Points only, each drawn as a shape (shapedPoints), filled with its colour or hollow. */
  function marks(label, variant, color, shape, filled, format, size) {
    return line(label, variant, color, format, { paths: () => null, points: { show: true, size: size || 10, width: 1.5, fill: filled ? color : "#ffffff", paths: shapedPoints(shape) } });
  }

  /** One bar per point, by default from the previous point's x to its own (builder: uPlot's bar options), down to the axis, in its colour. */
  function bars(label, variant, color, format, builder) {
    return line(label, variant, color, format, { width: 0, fill: color, points: { show: false }, paths: uPlot.paths.bars(builder || { align: -1, size: [1, Infinity], gap: 1 }) });
  }

  /**
   * The thread pool's adjustments by the runtime's reason, as drawn at the pool's new thread count: the pool forced to
   * grow or shrink black (starvation a filled triangle, cooperative blocking a filled diamond, a thread timing out a
   * hollow triangle down), hill climbing's own moves grey; black and grey are no variant's colour. In legend order.
   */
  const adjustmentStyles = [
    ["Starvation", "triangle", true, "#000000"],
    ["CooperativeBlocking", "diamond", true, "#000000"],
    ["ThreadTimedOut", "triangleDown", false, "#000000"],
    ["ClimbingMove", "plus", false, "#777777"],
    ["RandomMove", "cross", false, "#777777"],
    ["ChangePoint", "square", false, "#777777"],
    ["Stabilizing", "square", true, "#777777"],
    ["Warmup", "diamond", false, "#777777"],
    ["Initializing", "triangleDown", false, "#777777"],
  ];

  /** A reason the runtime may add later. */
  const otherAdjustment = ["", "cross", false, "#000000"];

  /** Colours of the requests that failed or timed out (no variant's colour), and of the applied load. */
  const failedColor = "#b0b0b0";
  const timedOutColor = "#111111";
  const loadColor = "#555555";

  /** A load's unit beside its figure, from the summary's load unit: "users", "clients", "req/s" for an arrival rate. */
  function loadUnit(unit) {
    return unit === "rate" ? "req/s" : unit;
  }

  /** A load axis's label from the summary's load unit, naming the unit its points are in: "users", "clients", "arrival rate (req/s)", the burst's size. */
  function loadLabel(unit) {
    return unit === "rate" ? "arrival rate (req/s)" : unit === "burst" ? "requests sent at once (the burst)" : unit;
  }

  /**
   * Per variant, small multiples on scales every variant shares (so no variant's line hides another's and panels compare
   * by eye): a load run's latency per interval (log, p99 solid, p50 dashed; an interval without an answer a gap) and the
   * requests that ended in each interval stacked by outcome (ok, failed, timed out, each its band); a burst's every
   * answered request at its completion time and latency, and its completion curve; then the API's pool threads (solid)
   * and queue (dashed, right axis) with the observer's adjustments; last the load applied. Timed-out requests are never
   * drawn as latencies. Read from the run's summary (RunSummary) as injected.
   */
  function variantPanelPlots(summary) {
    const variants = summary.variants;
    const burst = variants.length > 0 && variants.every(v => v.loadUnit === "burst");
    const unit = summary.words.unit;
    const adjustmentsOf = v => ((summary.observations || {})[v.name] || {}).adjustments || [];
    const requestsOf = i => i.ok + i.httpErrors + i.timedOut + i.connectionErrors;
    // SummaryRequest.Answered: an answer arrived, so its time is a latency.
    const answeredOf = v => (v.burst || []).filter(r => r.end === "Ok" || r.end === "HttpStatus");
    const latencies = variants.flatMap(v => v.intervals.filter(i => completedOf(i) > 0).flatMap(i => [i.p50Ms, i.p99Ms])).filter(ms => ms > 0);
    const shared = {
      x: [0, most(variants.flatMap(v => [
        ...v.intervals.map(i => i.elapsedSeconds), ...v.telemetry.map(t => t.elapsedSeconds),
        ...(v.burst || []).map(r => r.completedSeconds), ...adjustmentsOf(v).map(a => a.elapsedSeconds)])) || 1],
      latency: latencies.length > 0 ? [Math.min(...latencies), most(latencies)] : [1, 10],
      requests: [0, most(variants.flatMap(v => v.intervals.map(requestsOf))) || 1],
      timeline: [0, most(variants.flatMap(v => answeredOf(v).map(r => r.latencyMs / 1000))) * 1.05 || 1],
      burst: [0, most(variants.map(v => (v.burst || []).length)) || 1],
      threads: [0, most(variants.flatMap(v => [...v.telemetry.map(t => t.threadCount), ...adjustmentsOf(v).map(a => a.newWorkerThreadCount)])) * 1.1 || 1],
      queue: [0, most(variants.flatMap(v => v.telemetry.map(t => t.queueLength))) * 1.1 || 1],
    };
    const xLabel = burst ? "seconds since the burst was sent (a fresh API per variant)" : "seconds since the variant started (variants run one after another)";
    const seconds = (u, x) => formatNumber(x, "s");
    const count = v => formatNumber(v);
    const panel = (title, yLabel, series, data, more) => ({ title, xLabel, xLegend: seconds, xRange: shared.x, yLabel, yFormat: count, series, data, ...more });
    const specs = [];
    for (const v of variants) {
      const name = v.name;
      if (burst) {
        const answered = answeredOf(v);
        const given = (v.burst || []).filter(r => !answered.includes(r));
        specs.push(panel(`${name}: every completed request, when it completed and how long it took (shared scale)`, "latency (s)",
          [marks(`${name} completed`, name, v.color, "circle", true, s => formatMs(s * 1000), 5)],
          [answered.map(r => r.completedSeconds), answered.map(r => r.latencyMs / 1000)],
          { yRange: shared.timeline, yFormat: s => formatMs(s * 1000), height: 240 }));
        const served = [{ xs: [0, ...answered.map(r => r.completedSeconds)], columns: [[0, ...answered.map((r, i) => i + 1)]] }];
        const servedSeries = [line(`${name} served`, name, v.color, count)];
        if (given.length > 0) {
          served.push({ xs: [0, ...given.map(r => r.completedSeconds)], columns: [[0, ...given.map((r, i) => i + 1)]] });
          servedSeries.push(line(`${name} given up without an answer (a timed-out one took at least its time here)`, name, timedOutColor, count, { dash: [6, 4] }));
        }
        specs.push(panel(`${name}: completion curve, the burst's ${unit} answered by each moment since it was sent`, `${unit} so far`,
          servedSeries, align(served), { yRange: shared.burst, height: 200 }));
      } else {
        const xs = v.intervals.map(i => i.elapsedSeconds);
        const at = value => v.intervals.map(i => (completedOf(i) > 0 ? positiveOrNull(value(i)) : null));
        specs.push(panel(`${name}: latency of the ${unit} completed per interval, p99 solid, p50 dashed (log scale, shared by every variant)`, "latency",
          [line(`${name} p99`, name, v.color, formatMs), line(`${name} p50`, name, v.color, formatMs, { width: 1.5, dash: [6, 4] })],
          [xs, at(i => i.p99Ms), at(i => i.p50Ms)],
          { log: true, yRange: shared.latency, yFormat: formatMs, height: 240 }));
        // Cumulative bands, the tallest first, so each outcome shows as its own band over the one before.
        const outcomeSeries = [];
        const outcomeData = [xs];
        if (v.outcomes.timedOut > 0) {
          outcomeSeries.push(bars(`${name} timed out`, name, timedOutColor, count));
          outcomeData.push(v.intervals.map(requestsOf));
        }
        if (v.outcomes.failed - v.outcomes.timedOut > 0) {
          outcomeSeries.push(bars(`${name} failed (HTTP status or connection error)`, name, failedColor, count));
          outcomeData.push(v.intervals.map(i => requestsOf(i) - i.timedOut));
        }
        outcomeSeries.push(bars(`${name} ok`, name, v.color, count));
        outcomeData.push(v.intervals.map(i => i.ok));
        specs.push(panel(`${name}: ${unit} ended per interval by outcome (stacked: ok, failed, timed out)`, unit, outcomeSeries, outcomeData,
          { yRange: shared.requests, height: 200 }));
      }
      const adjustments = adjustmentsOf(v);
      const reasons = [...new Set(adjustments.map(a => a.reason))]
        .map(reason => adjustmentStyles.find(s => s[0] === reason) || [reason, ...otherAdjustment.slice(1)])
        .sort((a, b) => {
          const rank = s => (adjustmentStyles.includes(s) ? adjustmentStyles.indexOf(s) : adjustmentStyles.length);
          return rank(a) - rank(b) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
        });
      const poolGroups = [{ xs: v.telemetry.map(t => t.elapsedSeconds), columns: [v.telemetry.map(t => t.threadCount), v.telemetry.map(t => t.queueLength)] },
        ...reasons.map(([reason]) => {
          const of = adjustments.filter(a => a.reason === reason);
          return { xs: of.map(a => a.elapsedSeconds), columns: [of.map(a => a.newWorkerThreadCount)] };
        })];
      specs.push(panel(`${name}: API thread pool (recorded in the API every second), threads solid, queued items dashed${adjustments.length > 0 ? ", adjustments marked" : ""}`, "pool threads",
        [
          line(`${name} threads`, name, v.color, count),
          line(`${name} queue`, name, v.color, count, { scale: "y2", width: 1.5, dash: [6, 4] }),
          ...reasons.map(([reason, shape, filled, color]) => marks(`pool adjustment: ${reason}`, name, color, shape, filled, y => `${count(y)} threads`)),
        ],
        align(poolGroups),
        { yRange: shared.threads, y2: { label: "queued work items", range: shared.queue }, height: 220 }));
    }
    const load = burst ? null : variants.find(v => v.intervals.length > 0);
    if (load) {
      const applied = load.intervals.filter(i => !i.tail);
      specs.push(panel("Applied load (the same shape for every variant)", loadLabel(load.loadUnit),
        [line(`${loadLabel(load.loadUnit)}, every variant`, null, loadColor, count)],
        [applied.map(i => i.elapsedSeconds), applied.map(i => i.load)],
        { yRange: [0, load.peakLoad * 1.1 || 1], height: 180 }));
    }
    return specs;
  }

  /** "90 %", "99.9 %": a "nines" axis's value n as the percentile 100 x (1 - 10^-n). */
  function ninesText(n) {
    return `${+(100 * (1 - Math.pow(10, -n))).toFixed(4)} %`;
  }

  /**
   * Milliseconds (log) against the percentile of the population on a "nines" axis (90 %, 99 %, 99.9 %, ...): per curve its
   * exact points solid, then its lower bounds (timed-out requests, drawn at their timeout) dashed, joined to its last
   * exact point, so a variant whose requests mostly timed out sits above one whose requests were answered.
   * model: { panelTitle, population, quantity, curves: [{ name, color, points: [{ percentile, latencyMs, isLowerBound }] }] }
   */
  function distributionPlots(model) {
    const nines = p => -Math.log10(1 - p.percentile / 100);
    const groups = [];
    const series = [];
    for (const v of model.curves) {
      const drawn = v.points.filter(p => Number.isFinite(nines(p)) && p.latencyMs > 0);
      const exact = drawn.filter(p => !p.isLowerBound);
      const bounds = drawn.filter(p => p.isLowerBound);
      if (exact.length > 0) {
        series.push(line(v.name, v.name, v.color, formatMs));
        groups.push({ xs: exact.map(nines), columns: [exact.map(p => p.latencyMs)] });
      }
      if (bounds.length > 0) {
        const joined = [...exact.slice(-1), ...bounds];
        series.push(line(`${v.name}: timed out, at least`, v.name, v.color, y => `\u2265 ${formatMs(y)}`, { dash: [6, 4] }));
        groups.push({ xs: joined.map(nines), columns: [joined.map(p => p.latencyMs)] });
      }
    }
    return [{
      title: model.panelTitle, xLabel: `percentile of ${model.population} (log "nines" axis)`, xLegend: (u, x) => ninesText(x),
      xValues: (u, ticks) => ticks.map(ninesText), xSplits: (u, i, min, max) => Array.from({ length: Math.max(0, Math.floor(max) - Math.ceil(min) + 1) }, (_, k) => Math.ceil(min) + k),
      yLabel: `${model.quantity} (log scale)`, yFormat: formatMs, log: true, height: 320, series, data: align(groups),
    }];
  }

  /** The report's latency distribution from its summary: every variant's answered and timed-out requests. */
  function latencyDistribution(summary) {
    return {
      panelTitle: "Latency distribution; dashed: requests that timed out, drawn at their timeout (a lower bound)",
      population: `answered and timed-out ${summary.words.unit}`, quantity: "latency",
      curves: summary.variants.filter(v => v.distribution.length > 0).map(v => ({ name: v.name, color: v.color, points: v.distribution })),
    };
  }

  /**
   * An experiment's evidence: a bar per variant in its colour (x: the variants in order; a figure under its noise drawn
   * at 0, its label saying what was measured), the seed's figures as dashed grey lines across the width.
   * model: { panelTitle, unit, bars: [{ name, color, value, label }], seedLines: [{ name, value }] }
   */
  function barPlots(model) {
    const n = model.bars.length;
    const names = model.bars.map(b => b.name);
    const xs = [0.5, ...names.map((b, i) => i + 1), n + 0.5];
    const centred = { align: 0, size: [0.6, 120] };
    const series = model.bars.map(b => bars(`${b.name}: ${b.label}`, b.name, b.color, () => b.label, centred));
    // undefined at the edges, so a bar is as wide as the variants' spacing (uPlot measures it over the values not undefined).
    const data = [xs, ...model.bars.map((b, i) => xs.map(x => (x === i + 1 ? b.value : x === 0.5 || x === n + 0.5 ? undefined : null)))];
    for (const s of model.seedLines) {
      series.push(line(s.name, null, loadColor, y => formatNumber(y, model.unit), { width: 1.5, dash: [6, 4], points: { show: false } }));
      data.push(xs.map(() => s.value));
    }
    return [{
      title: model.unit.length === 0 ? model.panelTitle : `${model.panelTitle} (${model.unit})`, xLabel: "variant", xLegend: (u, x) => names[x - 1] || "",
      xValues: (u, ticks) => ticks.map(x => names[x - 1] || ""), xSplits: () => names.map((_, i) => i + 1), xRange: [0.5, n + 0.5],
      yLabel: model.unit.length === 0 ? "count" : model.unit, yFormat: v => formatNumber(v), height: 220, series, data,
    }];
  }

  /** A path builder drawing each point's interval (lows[i] to highs[i]) as a capped vertical stroke. */
  function whiskers(lows, highs) {
    return (u, seriesIdx, idx0, idx1) => {
      const path = new Path2D();
      const cap = 4 * uPlot.pxRatio;
      for (let i = idx0; i <= idx1; i++) {
        if (lows[i] == null || highs[i] == null) {
          continue;
        }
        const x = u.valToPos(u.data[0][i], "x", true);
        const [low, high] = [u.valToPos(lows[i], "y", true), u.valToPos(highs[i], "y", true)];
        path.moveTo(x, low);
        path.lineTo(x, high);
        path.moveTo(x - cap, low);
        path.lineTo(x + cap, low);
        path.moveTo(x - cap, high);
        path.lineTo(x + cap, high);
      }
      return { stroke: path };
    };
  }

  /**
   * The matrix's compute sweep (seed 004's hypotheses): Task.Run's efficiency against the cycles per unit (log x), per
   * core count a line through the rows with a verdict, a hollow ring for a row without one (impossible or
   * inconclusive), capped whiskers for each row's 95 % CI; seed 004's curves dashed and the limits dotted.
   * model: { title, panelTitle, lines: [{ name, color, rows: [{ cycles, percent, low, high, verdict }] }],
   *          seeds: [{ name, color, points: [[cycles, percent]] }], limits: [{ name, color, percent }] }
   */
  function efficiencyPlots(model) {
    const xs = [...new Set([...model.lines.flatMap(l => l.rows.map(r => r.cycles)), ...model.seeds.flatMap(s => s.points.map(p => p[0]))])].sort((a, b) => a - b);
    const at = (rows, value) => xs.map(x => {
      const row = rows.find(r => r.cycles === x);
      return row ? value(row) : undefined;
    });
    const series = [];
    const data = [xs];
    const percent = y => formatNumber(y, "%");
    for (const l of model.lines) {
      const lows = at(l.rows, r => r.low);
      const highs = at(l.rows, r => r.high);
      // undefined at a ring: the line joins the rows with a verdict straight across it.
      series.push(line(`${l.name}: median efficiency`, l.name, l.color, percent, { points: { show: true, size: 6 } }));
      data.push(at(l.rows, r => (r.verdict ? r.percent : undefined)));
      series.push(marks(`${l.name}: no verdict (ring)`, l.name, l.color, "circle", false, percent));
      data.push(at(l.rows, r => (r.verdict ? undefined : r.percent)));
      series.push(line(`${l.name}: 95 % CI (whiskers)`, l.name, l.color, percent, {
        width: 1.5, paths: whiskers(lows, highs), points: { show: false },
        value: (u, y, s, i) => (i == null || lows[i] == null ? "--" : `${formatNumber(lows[i])} to ${percent(highs[i])}`),
      }));
      data.push(at(l.rows, r => (r.low == null || r.high == null ? undefined : r.percent)));
    }
    for (const s of model.seeds) {
      series.push(line(s.name, null, s.color, percent, { dash: [6, 4], points: { show: false } }));
      data.push(xs.map(x => (s.points.find(p => p[0] === x) || [])[1]));
    }
    for (const limit of model.limits) {
      series.push(line(limit.name, null, limit.color, percent, { width: 1.5, dash: [2, 3], points: { show: false } }));
      data.push(xs.map(() => limit.percent));
    }
    const top = most([...data.slice(1).flat().filter(y => y != null), ...model.lines.flatMap(l => l.rows.map(r => r.high || 0))]);
    return [{
      title: model.panelTitle, xLabel: "cycles of work per unit (log scale)", xLegend: (u, x) => `${Math.round(x).toLocaleString("en-US")} cycles`,
      xLog: true, xValues: (u, ticks) => ticks.map(x => (x == null ? "" : Math.round(x).toLocaleString("en-US"))),
      yLabel: "% efficiency", yFormat: v => formatNumber(v), yRange: [0, top * 1.05 || 1], height: 340, series, data,
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

  global.Charts = {
    loadUnit,
    responseCurve: (el, model, summary) => new Chart(el, summary ? curveOf(model, summary) : model, responseCurvePlots),
    timeSeries: (el, model) => new Chart(el, model, timeSeriesPlots),
    latencyOverTime: (el, model, summary) => new Chart(el, latencyOverTime(model, summary), timeSeriesPlots),
    variantPanels: (el, summary) => new Chart(el, { variants: summary.variants }, () => variantPanelPlots(summary)),
    // A variant's button for each curve, bar or line of the model.
    distribution: (el, model) => new Chart(el, { ...model, variants: model.curves }, distributionPlots),
    latencyDistribution: (el, summary) => global.Charts.distribution(el, latencyDistribution(summary)),
    bars: (el, model) => new Chart(el, { ...model, variants: model.bars }, barPlots),
    efficiency: (el, model) => new Chart(el, { ...model, variants: model.lines }, efficiencyPlots),
    tiles,
    instances,
  };
})(window);
