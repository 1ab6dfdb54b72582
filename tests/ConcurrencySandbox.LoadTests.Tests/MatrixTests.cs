using ConcurrencySandbox.Contracts.Reports;
using System.Text.Json;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.LoadTests.ApiClient;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.Platform.Machine;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.LoadTests.Tests;

public class MatrixTests
{
    [Fact]
    public void SweepJsonIsReadWithItsBreakEvenProcessorCountAndIntervals()
    {
        var sent = new SweepReport("compute", "cycles", [Row(1, 50, 2)], BreakEvenAmount: null, TotalSeconds: 0.01,
            CurrentMachine.Info with { ProcessorCount = 1 }, "policy", SpeedDriftPercent: 3.5, Flags: []);

        var sweep = JsonSerializer.Deserialize<SweepReport>(JsonSerializer.Serialize(sent, SandboxClient.Json), SandboxClient.Json)!;

        Assert.Equal(sent.Rows, sweep.Rows); // each figure's median, CI, n and min, the stop reason, the load and the speed check
        Assert.Null(sweep.BreakEvenAmount);
        Assert.Equal(1, sweep.ProcessorCount);
        Assert.Equal(3.5, sweep.SpeedDriftPercent);
    }

    [Theory]
    [InlineData(101, 4, 1, "confirmed: on 1 core Task.Run's efficiency at 1,000,000,000 cycles was 101 % [97, 105] n=10")]
    [InlineData(180, 4, 2, "refuted")] // the API was not really pinned: 180 % is possible on the 2 cores it had
    [InlineData(180, 4, 1, "not decided")] // impossible on one core even at the CI's lower end
    [InlineData(101, 30, 1, "not decided: on 1 core the row at 1,000,000,000 cycles did not pass its checks (1 core, 1,000,000,000 cycles: % efficiency inconclusive: +-30 %")]
    public void Hypothesis3IsJudgedOnOneCoreAtTheLargestAmountOnlyWhenThatRowPassedItsChecks(double efficiencyAtLargest, double halfWidthPercent, int apiProcessorCount, string expected)
    {
        CoreCountRun[] runs =
        [
            new(1, null, apiProcessorCount, [Row(10, 300, 4), Row(1_000_000_000, efficiencyAtLargest, halfWidthPercent)], null, null),
            new(2, null, 2, [Row(1_000_000_000, 199, 4)], null, null),
        ];

        Assert.Contains(expected, MatrixRunner.Hypothesis3(runs), StringComparison.Ordinal);
    }

    [Fact]
    public void TheMatrixReportIsRenderedFromEachFanOutsSummaryKeepingItsLowerBoundsAndWritingItsReport()
    {
        // threadpool's requests sent after 10 s time out at 60 s: its mean and p99 are lower bounds in its summary.
        var fanOut = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 ? 90_000 : 100, cpus: 1).Analysed();
        var folder = Path.Combine(Path.GetTempPath(), "matrix-report-" + Guid.NewGuid().ToString("N"));
        try
        {
            var report = SyntheticReports.Matrix(new MatrixOptions([1], null, ["fanout"], 1000, 6), 100, folder);
            report.WriteRunning([new CoreCountRun(1, null, 1, [], null, fanOut)]);

            var threadpool = fanOut.Variants[0];
            Assert.Contains("meanMs", threadpool.LowerBounds!);
            var row = File.ReadAllLines(Path.Combine(folder, "matrix.md")).Single(line => line.StartsWith("| 1 | 1 | threadpool@1cpu |", StringComparison.Ordinal));
            Assert.Contains(ReportWriter.Latency(threadpool, threadpool.MeanMs, "meanMs", "0"), row, StringComparison.Ordinal);
            Assert.StartsWith("\u2265 ", ReportWriter.Latency(threadpool, threadpool.MeanMs, "meanMs", "0"), StringComparison.Ordinal);
            using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(folder, "matrix.json")));
            var written = json.RootElement.GetProperty("runs")[0].GetProperty("fanOut");
            Assert.Equal("fanout-1cpu/summary.json", written.GetProperty("summary").GetString());
            Assert.Equal(threadpool.MeanMs, written.GetProperty("variants")[0].GetProperty("meanMs").GetDouble());
            Assert.Contains("meanMs", written.GetProperty("variants")[0].GetProperty("lowerBounds").EnumerateArray().Select(e => e.GetString()));
            Assert.StartsWith("partial: still running", json.RootElement.GetProperty("partial").GetString(), StringComparison.Ordinal);
            Assert.True(File.Exists(Path.Combine(folder, "fanout-1cpu", "report.html")));
            Assert.Equal(fanOut, RunSummary.Parse(File.ReadAllText(Path.Combine(folder, "fanout-1cpu", "summary.json"))), SummaryComparer);
            Assert.Contains("a fanout-1cpu/report.html", RenderedPage.LinesOf(Path.Combine(folder, "report.html")));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public void TheMatrixPageOpensWithTheSeedsInWordsWhatEachCoreCountsFanOutFoundAndALinkToItsReport()
    {
        // It opened "Hypothesis 3 of seed 004" with neither seed introduced, and linked the fan-out reports only at the bottom.
        // The 1,000-cycle rows' CIs are 8 x the target: flagged inconclusive.
        var runs = new[] { 1, 2 }.Select(cpus => new CoreCountRun(cpus, null, cpus, [Row(1_000, 30, 40), Row(1_000_000_000, 100, 1)], null,
            SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 / cpus ? 90_000 : 100, cpus).Analysed())).ToList();

        var lines = RenderedPage.Lines(MatrixRunner.Html(runs, "Hypothesis 3 of seed 004 ...", SyntheticReports.Matrix(new MatrixOptions([1, 2], null, ["sweep", "fanout"], 1_000, 1)), null));
        var markdown = MatrixRunner.Markdown(runs, "Hypothesis 3 of seed 004 ...", SyntheticReports.Matrix(new MatrixOptions([1, 2], null, ["sweep", "fanout"], 1_000, 1)), null);

        // The answer: four short sentences (what was compared where, the sweep's efficiency with its CI, the fan-out, the verdicts).
        var answer = lines[1];
        Assert.StartsWith("p.answer Task.Run against synchronous CPU work (seed 004) and ways to fan out blocking calls (seed 003), with the API on 1 core and 2 cores. Task.Run's efficiency at 1,000,000,000 cycles was 100 % [99, 101] on 1 core and 100 % [99, 101] on 2 cores (100 % is no gain). Fan-out: async answered every request up to ", answer, StringComparison.Ordinal);
        var threadpool = runs.Select(r => r.FanOut!.Variants[0].Outcomes.FailedPercent).Order().Select(p => p.ToString("0.#", System.Globalization.CultureInfo.InvariantCulture)).ToList();
        Assert.Contains($"; threadpool failed {threadpool[0]} % to {threadpool[1]} % of its requests. {MatrixRunner.Hypothesis3Name} confirmed; seed 003's effect reproduced on 1 core and 2 cores.", answer, StringComparison.Ordinal);
        Assert.Equal(4, SentencesOf(answer["p.answer ".Length..]).Count);
        // What it rests on, under its own heading right after the first screen: the seeds in words, the sweep with its break-even, each core count's fan-out in a sentence of its own.
        var details = lines[lines.ToList().IndexOf($"h2 {MatrixRunner.AnswerDetailsHeading}") + 1];
        Assert.StartsWith($"p The matrix re-runs {SeedReports.Introduce("004")} (its compute sweep) and {SeedReports.Introduce("003")} (its fan-out) with the API on 1 core and 2 cores.", details, StringComparison.Ordinal);
        Assert.Contains("with the API on 1 core and 2 cores. The compute sweep: Task.Run's efficiency at 1,000,000,000 cycles was 100 % [99, 101] on 1 core and 100 % [99, 101] on 2 cores (100 % is no gain). Break-even: none in the sweep on 1 core, none in the sweep on 2 cores. The fan-out on 1 core: ", details, StringComparison.Ordinal);
        Assert.Contains($"The fan-out on 1 core: {PlainAnswer.Found(runs[0].FanOut!)}. ", details, StringComparison.Ordinal);
        Assert.EndsWith($"The fan-out on 2 cores: {PlainAnswer.Found(runs[1].FanOut!, effectSaid: true)}.", details, StringComparison.Ordinal);
        Assert.Equal(2, details.Split(SeedReports.Effect("003")!).Length);
        Assert.Contains("p.verdict Hypothesis 3 of seed 004 ...", lines);
        var firstHeading = lines.ToList().IndexOf($"h2 {MatrixRunner.AnswerDetailsHeading}");
        Assert.Equal(firstHeading, lines.ToList().FindIndex(line => line.StartsWith("h2 ", StringComparison.Ordinal)));
        Assert.InRange(lines.ToList().IndexOf("p.verdict Hypothesis 3 of seed 004 ..."), 2, firstHeading);
        Assert.All(new[] { "fanout-1cpu/report.html", "fanout-2cpu/report.html" }, file =>
        {
            Assert.InRange(lines.ToList().IndexOf($"a {file}"), 3, firstHeading);
            Assert.Contains($"[{file}]({file})", markdown, StringComparison.Ordinal);
        });
        Assert.Contains($"**{answer["p.answer ".Length..]}**", markdown, StringComparison.Ordinal);
        // The sweep's flags (a red list) follow its table instead of opening the page.
        Assert.InRange(lines.ToList().IndexOf("h2 Flagged figures (impossible and inconclusive ones carry no verdict)"), lines.ToList().IndexOf("h2 Compute sweep (seed 004's table) per core count") + 1, int.MaxValue);
    }

    [Theory]
    [InlineData(4)]
    [InlineData(2026)]
    public void TheMatrixsFirstScreenHasATilePerCoreCountOfTheSweepAndPerFanOutVariantEachReadingItsFiles(int seed)
    {
        // Its first screen was one 150-word sentence and no tile. Seeded: efficiencies and CIs, which core counts ran, and
        // a fan-out whose threadpool times out from a random second (lower bounds) or from the start (no answer).
        var random = new Random(seed);
        var cores = Enumerable.Range(1, 1 + random.Next(3)).ToList();
        var runs = cores.Select(cpus => new CoreCountRun(cpus, null, cpus,
            [Row(1_000, 5 + (random.NextDouble() * 40), 5 + random.Next(30)), Row(1_000_000_000, 90 + (random.NextDouble() * 100 * cpus), 0.5 + (random.NextDouble() * 8))], null,
            SyntheticReports.LoadRun("fanout", ["threadpool", "sync-over-async", "async"], 20, 5, (name, t) => name switch
            {
                "threadpool" => t >= (cpus == 1 ? 0 : random.Next(3, 15)) ? 90_000 : 100,
                "sync-over-async" => 100 + (random.Next(20) * t),
                _ => 100,
            }, cpus).Analysed())).ToList();
        var folder = Path.Combine(Path.GetTempPath(), "matrix-first-screen-" + Guid.NewGuid().ToString("N"));
        try
        {
            SyntheticReports.Matrix(new MatrixOptions(cores, null, ["sweep", "fanout"], 1_000_000_000, 1), 100, folder).Write(runs, null);
            var lines = RenderedPage.LinesOf(Path.Combine(folder, "report.html"));
            var firstHeading = lines.ToList().FindIndex(line => line.StartsWith("h2 ", StringComparison.Ordinal));
            var firstScreen = lines.Take(firstHeading).Where(line => line.StartsWith("p.answer ", StringComparison.Ordinal) || line.StartsWith("tile ", StringComparison.Ordinal)).ToList();

            // A sweep tile per core count: its largest row's efficiency with its CI, the amount, the break-even and the API's processor count.
            foreach (var run in runs)
            {
                var largest = run.Sweep.MaxBy(row => row.Amount)!;
                Assert.Single(firstScreen, line => line.StartsWith($"tile {run.Label}: Task.Run efficiency {largest.EfficiencyPercent.ToString("0.#", System.Globalization.CultureInfo.InvariantCulture)} % {largest.Efficiency.Interval("0.#")} n={largest.Efficiency.Count}", StringComparison.Ordinal)
                    && line.EndsWith($"; at 1,000,000,000 cycles; break-even {(MatrixRunner.BracketOf(run) is { Above: not null } bracket ? bracket.Text : "none in the sweep")}; API ProcessorCount {run.Cpus}", StringComparison.Ordinal));
            }
            // A fan-out tile per variant and core count, the one its own report opens with: lower bounds keep their "\u2265", no answer is never 0.
            foreach (var tile in runs.SelectMany(r => ReportWriter.Tiles(r.FanOut!)))
            {
                Assert.Single(firstScreen, $"tile {tile.Name}: {string.Join("; ", tile.Figures.Select(f => $"{f.Label} {f.Value}"))}");
            }
            var variants = runs.SelectMany(r => r.FanOut!.Variants).ToList();
            Assert.All(variants.Where(v => v.LowerBounds?.Contains("p99Ms") == true && v.Outcomes.Completed > 0), v =>
                Assert.Contains(firstScreen, line => line.StartsWith($"tile {v.Name}: ", StringComparison.Ordinal) && line.Contains("/ \u2265 ", StringComparison.Ordinal)));
            Assert.All(variants.Where(v => v.Outcomes.Completed == 0), v =>
                Assert.Contains(firstScreen, line => line.StartsWith($"tile {v.Name}: RPS {v.RequestsPerSecond.ToString("0.##", System.Globalization.CultureInfo.InvariantCulture)}; p50 / p99 (ms) {ReportWriter.NoAnswer};", StringComparison.Ordinal)));
            // Every label of the two sets is defined under them, and every number on the first screen is a field of the matrix's files.
            Assert.Equal(2, lines.Take(firstHeading).Count(line => line.StartsWith("p.legend In the ", StringComparison.Ordinal)));
            Assert.InRange(SentencesOf(firstScreen[0]["p.answer ".Length..]).Count, 1, 4);
            var quoted = new[] { MatrixRunner.Hypothesis3Name, "seed 004", "seed 003", "95 % CI", "100 % is no gain" }
                .Concat(runs.Select(r => r.Label)).Concat(variants.Select(v => v.Name)).OrderByDescending(words => words.Length);
            var fields = runs.SelectMany(r => FirstScreenTests.FieldsOf(r.FanOut!)).Concat(FirstScreenTests.FieldsOfJson(File.ReadAllText(Path.Combine(folder, "matrix.json")))).ToList();
            FirstScreenTests.AssertEveryNumberIsAField($"matrix, seed {seed}", quoted.Aggregate(string.Join("\n", firstScreen), (text, words) => text.Replace(words, "", StringComparison.Ordinal)), fields);
            // matrix.md opens with the same blocks: the answer in bold, then each set of tiles as a table.
            var markdown = File.ReadAllText(Path.Combine(folder, "matrix.md"));
            Assert.StartsWith($"# Core-count matrix\n\n**{firstScreen[0]["p.answer ".Length..]}**\n\n| core count | Task.Run efficiency | at | break-even | API ProcessorCount |", markdown, StringComparison.Ordinal);
            Assert.Contains($"| {variants[0].Name} | ", markdown, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public void TheFanOutTablesNoteSaysWhatItsLowerBoundsAreAsTheFanOutReportsDo()
    {
        // Its note said "timed-out ones are counted, not averaged" over a mean of "\u2265 53128" (issue 39: the page contradicts itself).
        var runs = new[] { 1, 2 }.Select(cpus => new CoreCountRun(cpus, null, cpus, [], null,
            SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 / cpus ? 90_000 : 100, cpus).Analysed())).ToList();
        var report = SyntheticReports.Matrix(new MatrixOptions([1, 2], null, ["fanout"], 1_000, 1));
        var note = runs[0].FanOut!.Words.LatencyNote;

        var page = RenderedPage.Lines(MatrixRunner.Html(runs, "verdict", report, null));
        var markdown = MatrixRunner.Markdown(runs, "verdict", report, null).Split('\n');

        Assert.Contains(page, line => line.StartsWith("td ", StringComparison.Ordinal) && line.Contains("| threadpool@1cpu | \u2265 ", StringComparison.Ordinal));
        Assert.Single(page, line => line.StartsWith("p \"Starved from\"", StringComparison.Ordinal) && line.EndsWith(note, StringComparison.Ordinal));
        Assert.Single(markdown, line => line.StartsWith("\"Starved from\"", StringComparison.Ordinal) && line.TrimEnd().EndsWith(note, StringComparison.Ordinal));
        Assert.DoesNotContain(page.Concat(markdown), line => line.Contains("not averaged", StringComparison.Ordinal));
    }

    /// <summary>A paragraph's sentences: each ends at a full stop followed by a space or the end (a decimal point is followed by a digit).</summary>
    internal static IReadOnlyList<string> SentencesOf(string paragraph) =>
        [.. System.Text.RegularExpressions.Regex.Split(paragraph, @"(?<=\.)(?:\s+|$)").Where(sentence => sentence.Length > 0)];

    /// <summary>Two summaries are the same when they serialize the same (records holding lists compare those by reference).</summary>
    private static readonly IEqualityComparer<RunSummary> SummaryComparer = EqualityComparer<RunSummary>.Create((a, b) => a?.ToJson() == b?.ToJson(), s => s.ToJson().GetHashCode(StringComparison.Ordinal));

    /// <summary>A sweep row with the efficiency's 95 % CI <paramref name="halfWidthPercent"/> wide on each side (the target is 5 %).</summary>
    internal static ComparisonRow Row(long amount, double efficiencyPercent, double halfWidthPercent, SeedEfficiency? seed = null)
    {
        var seconds = new Estimate(1, 0.99, 1.01, 10, 0.98);
        var margin = efficiencyPercent * halfWidthPercent / 100;
        return new ComparisonRow(amount, seconds, seconds, new Estimate(efficiencyPercent, efficiencyPercent - margin, efficiencyPercent + margin, 10, efficiencyPercent - margin),
            StopReason.Converged, Remeasured: false, TargetHalfWidthPercent: 5, Load: null, new SpeedCheck(0.01, 0.011), seed);
    }

    [Theory]
    [InlineData(7.942e-6, "7.942 us [3.355 us, 8.082 us] n=1000, min 651 ns")]
    [InlineData(2.5, "2.5 s [1.056 s, 2.544 s] n=1000, min 204.9 ms")]
    public void AFlaggedSweepDurationIsGivenInTheFormatOfTheTableCellItMarks(double taskRunSeconds, string expected)
    {
        // The 2-core row at 1 cycle of the committed matrix: Task.Run's CI +-29.8 %, inconclusive.
        var scale = taskRunSeconds / 7.942e-6;
        var row = Row(1, 3.9, 20) with { TaskRun = new Estimate(taskRunSeconds, 3.355e-6 * scale, 8.082e-6 * scale, 1000, 6.51e-7 * scale) };
        var markdown = MatrixRunner.Markdown([new CoreCountRun(2, null, 2, [row], null, null)], "verdict", SyntheticReports.Matrix(new MatrixOptions([2], null, ["sweep"], 1, 6)), null);

        Assert.Contains($"- 2 cores, 1 cycle: Task.Run = {expected} (inconclusive): inconclusive: +-29.8 %", markdown, StringComparison.Ordinal);
        Assert.Contains($"| {DurationText.Of(taskRunSeconds)} (inconclusive) |", markdown, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(4)]
    [InlineData(2026)]
    public void NoSweepDurationOnTheMatrixPagesIsInENotation(int seed)
    {
        // Seeded durations from nanoseconds to seconds, each inconclusive so that it is flagged as well as tabled.
        var random = new Random(seed);
        var rows = Enumerable.Range(0, 8).Select(i =>
        {
            var seconds = Math.Pow(10, -8 + (random.NextDouble() * 8));
            var wide = new Estimate(seconds, seconds * 0.6, seconds * 1.3, 1000, seconds * 0.1);
            return Row((long)Math.Pow(10, i), 90, 20) with { Sync = wide, TaskRun = wide };
        }).ToList();
        var report = SyntheticReports.Matrix(new MatrixOptions([1], null, ["sweep"], 10_000_000, 6));
        var runs = new[] { new CoreCountRun(1, null, 1, rows, null, null) };

        var pages = MatrixRunner.Markdown(runs, "verdict", report, null) + string.Join("\n", RenderedPage.Lines(MatrixRunner.Html(runs, "verdict", report, null)));

        Assert.DoesNotMatch(@"\dE-\d", pages);
        Assert.All(rows, row => Assert.Contains($"sync = {DurationText.Of(row.SyncSeconds)} [{DurationText.Of(row.Sync.Low!.Value)}, ", pages, StringComparison.Ordinal));
    }

    [Fact]
    public void Hypothesis3IsNotTestedWhenOneCoreWasSkipped()
    {
        CoreCountRun[] runs = [new(1, "no taskset", null, [], null, null)];

        Assert.Contains("not tested", MatrixRunner.Hypothesis3(runs));
    }

    [Fact]
    public void StarvationStartsAtTheLoadOfTheIntervalTheFirstSlowRequestsWereSentIn()
    {
        var key = new VariantKey("threadpool", Cpus: 1);
        IntervalRow Row(double end, double users) => new(key, end, "users", users, 1, LatencyStats.Empty);
        // Intervals end at 4, 8, 12 and 16 s with 4, 8, 12 and 16 users; the requests sent in each, wherever they ended.
        var raw = new VariantResult(key, "/x", "users", 16, [Row(4, 4), Row(8, 8), Row(12, 12), Row(16, 16)], [], LatencyStats.Empty)
        {
            Sent = [new SentSlice(1, 2, 2_000, 0, 0, 0), new SentSlice(5, 2, 2_400, 0, 0, 0), new SentSlice(9.5, 1, 2_500, 0, 0, 0), new SentSlice(13, 1, 4_000, 1, 60_000, 0)],
        };
        var result = SyntheticReports.Report("fanout", "003", "quick", [raw]).Analysed().Variants[0];

        Assert.Equal("12 users", MatrixRunner.StarvedFrom(result, 2000));
        Assert.Equal("16 users", MatrixRunner.StarvedFrom(result, 3000));
        // The timed-out request counts at its 60 s timeout: a lower bound of 32 s.
        Assert.Equal("16 users", MatrixRunner.StarvedFrom(result, 30_000));
        Assert.Equal("never", MatrixRunner.StarvedFrom(result, 40_000));
    }
}
