using System.Text.Json.Nodes;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

public sealed class CompareTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "compare-" + Guid.NewGuid().ToString("N"));

    [Fact]
    public async Task CompareOfTwoRunsPrintsAndWritesMeanP99RpsAndThreadsWithDeltasAndRatios()
    {
        var a = Write("a", SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, _) => name == "threadpool" ? 2000 : 1000));
        var b = Write("b", SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, _) => name == "threadpool" ? 4000 : 1000));
        var outFolder = Path.Combine(_root, "cmp");

        var (code, output, error) = await InvokeAsync("compare", a, b, "--out", outFolder);

        Assert.Equal(CommandLine.ExitOk, code);
        Assert.Equal("", error);
        var comparison = ReportComparison.Of(a, b);
        var threadpoolMean = comparison.Table().Rows.Single(r => r[0] == "threadpool" && r[1] == "mean (ms)");
        var ratio = double.Parse(threadpoolMean[5].TrimEnd(' ', 'x'), System.Globalization.CultureInfo.InvariantCulture);
        Assert.InRange(ratio, 1.5, 2.5);
        Assert.StartsWith("+", threadpoolMean[4], StringComparison.Ordinal);
        Assert.Contains(comparison.Table().Rows, r => r[0] == "async" && r[1] == "peak threads" && r[5] == "1.00 x");
        Assert.Contains("| threadpool | mean (ms) |", output);
        Assert.Contains("| async | RPS |", File.ReadAllText(Path.Combine(outFolder, "compare.md")));
        Assert.Contains(RenderedPage.LinesOf(Path.Combine(outFolder, "compare.html")), line => line.StartsWith("td threadpool | p99 (ms) |", StringComparison.Ordinal));
    }

    [Fact]
    public void ADifferenceWhoseIntervalsDoNotOverlapIsStatedWithItsCi()
    {
        var a = WriteSummary("a", Rounded([100, 101, 99, 102, 98, 100], verdictFigure: (2, 1.8, 2.2)));
        var b = WriteSummary("b", Rounded([150, 151, 149, 152, 148, 150], verdictFigure: (4, 3.5, 4.5)));

        var table = ReportComparison.Of(a, b).Table();

        var mean = table.Rows.Single(r => r[0] == "async" && r[1] == "mean (ms)");
        Assert.Equal(["100 [98, 102]", "150 [148, 152]", "+50 [+46, +54]", "1.50 x"], mean.Skip(2));
        var run = table.Rows.Single(r => r[0] == "(the run)");
        Assert.Equal(["slowdown", "2 [1.8, 2.2]", "4 [3.5, 4.5]", "+2 [+1.3, +2.7]"], run.Skip(1).Take(4));
    }

    [Theory]
    [InlineData("0.0", 5)]
    [InlineData("0.00", 6)]
    public void TheRunsVerdictFigureIsComparedAtThePrecisionItsPagesPrint(string format, int seed)
    {
        // compare printed coldstart's verdict figure at 0.## (8.15 [7.22, 10.86]) beside pages that print it at its own 0.0.
        var random = new Random(seed);
        (double, double, double) Figure() => (2 + random.NextDouble(), 1 + random.NextDouble(), 3 + random.NextDouble());
        var (summaryA, summaryB) = (Rounded([100, 101, 99, 102, 98, 100], Figure()), Rounded([150, 151, 149, 152, 148, 150], Figure()));
        var a = WriteSummary("a", summaryA with { Rounds = summaryA.Rounds! with { Format = format } });
        var b = WriteSummary("b", summaryB with { Rounds = summaryB.Rounds! with { Format = format } });

        var run = ReportComparison.Of(a, b).Table().Rows.Single(r => r[0] == "(the run)");

        foreach (var (cell, rounds) in new[] { (run[2], ReportFolder.Read(a).Summary.Rounds!), (run[3], ReportFolder.Read(b).Summary.Rounds!) })
        {
            Assert.Equal($"{rounds.Show(rounds.Median!.Value)} [{rounds.Show(rounds.Low!.Value)}, {rounds.Show(rounds.High!.Value)}]", cell);
        }
    }

    [Fact]
    public void ADifferenceWhoseIntervalsOverlapIsNoDifferenceMeasured()
    {
        var a = WriteSummary("a", Rounded([100, 101, 99, 102, 98, 100], verdictFigure: (2, 1.8, 2.2)));
        var b = WriteSummary("b", Rounded([99, 103, 97, 104, 100, 101], verdictFigure: (2.1, 1.5, 2.5)));

        var comparison = ReportComparison.Of(a, b);

        var mean = comparison.Table().Rows.Single(r => r[0] == "async" && r[1] == "mean (ms)");
        Assert.Equal("no difference measured (within noise: measured +0.5 [-5, +6])", mean[4]);
        Assert.StartsWith("no difference measured (within noise: ", comparison.Table().Rows.Single(r => r[0] == "(the run)")[4]);
        Assert.Contains(Noise.NoDifference, comparison.ToMarkdown());
        Assert.Contains(ReportComparison.DifferenceNote, comparison.ToMarkdown());
    }

    [Fact]
    public void AFigureWithoutACiOnEitherSideIsPrintedButNotJudged()
    {
        var a = WriteSummary("a", Rounded([100, 101, 99, 102, 98, 100], verdictFigure: (2, 1.8, 2.2)));
        var b = WriteSummary("b", SyntheticReports.LoadRun("fanout", ["async"], 20, 5, (_, _) => 150).Analysed());

        var rows = ReportComparison.Of(a, b).Table().Rows;

        // B ran once: its mean has no CI, so the difference is printed and not judged, never a finding.
        var mean = rows.Single(r => r[0] == "async" && r[1] == "mean (ms)")[4];
        Assert.Matches(@"^\+\d+(\.\d)? \(not judged: no 95 % CI in B\)$", mean);
        // The peak step's p99 is not measured per round: not judged on either side.
        Assert.EndsWith("(not judged: no 95 % CI in A and B)", rows.Single(r => r[0] == "async" && r[1] == "p99 at peak load (ms)")[4]);
        Assert.DoesNotContain(rows, r => r[0] == "(the run)");
    }

    [Fact]
    public void ALowerBoundKeepsItsMarkAndIsNotJudgedEvenOverRounds()
    {
        var rounded = Rounded([100, 101, 99, 102, 98, 100], verdictFigure: (2, 1.8, 2.2));
        var a = WriteSummary("a", rounded with { Variants = [rounded.Variants[0] with { LowerBounds = ["meanMs"] }] });
        var b = WriteSummary("b", Rounded([150, 151, 149, 152, 148, 150], verdictFigure: (4, 3.5, 4.5)));

        var mean = ReportComparison.Of(a, b).Table().Rows.Single(r => r[0] == "async" && r[1] == "mean (ms)");

        Assert.StartsWith("\u2265 ", mean[2]);
        Assert.EndsWith("(not judged: no 95 % CI in A)", mean[4]);
    }

    [Fact]
    public void ADifferenceAgainstALowerBoundIsABoundItselfAndTwoLowerBoundsGiveNone()
    {
        // compare.html printed "\u2265 29752.6" beside 98.4 and then "-29654.2" and "0.00 x", as if both were measured.
        var run = Rounded([100, 101, 99, 102, 98, 100], verdictFigure: (2, 1.8, 2.2));
        RunSummary TimedOut(double meanMs) => run with { Variants = [run.Variants[0] with { MeanMs = meanMs, LowerBounds = ["meanMs"] }], Rounds = null };
        RunSummary Once(double meanMs) => run with { Variants = [run.Variants[0] with { MeanMs = meanMs }], Rounds = null };
        string[] MeanRow(RunSummary a, RunSummary b, string name) =>
            [.. ReportComparison.Of(WriteSummary(name + "-a", a), WriteSummary(name + "-b", b)).Table().Rows.Single(r => r[0] == "async" && r[1] == "mean (ms)")];

        var aBound = MeanRow(TimedOut(30_000), Once(100), "a-bound");
        var bBound = MeanRow(Once(100), TimedOut(30_000), "b-bound");
        var both = MeanRow(TimedOut(30_000), TimedOut(60_000), "both");

        Assert.Equal(["\u2264 -29900 (not judged: no 95 % CI in A and B)", "\u2264 0.0033 x"], aBound[4..]);
        Assert.Equal(["\u2265 +29900 (not judged: no 95 % CI in A and B)", "\u2265 300.00 x"], bBound[4..]);
        Assert.Equal(["n/a (both lower bounds: requests timed out in A and B)", "n/a"], both[4..]);
    }

    [Fact]
    public void ThePageOpensWithWhatMovedBeyondNoiseByHowMuchAndHowSureAsTheTablePrintsIt()
    {
        // compare.html opened on the two runs' folders and a table of 11 rows; no sentence said what changed (issue 39 item 3).
        var a = WriteSummary("a", Rounded([100, 101, 99, 102, 98, 100], verdictFigure: (2, 1.8, 2.2)));
        var b = WriteSummary("b", Rounded([150, 151, 149, 152, 148, 150], verdictFigure: (2.1, 1.5, 2.5)));
        var comparison = ReportComparison.Of(a, b);

        var answer = comparison.Answer();

        Assert.StartsWith("fanout, run B against run A: 3 figures moved beyond noise (B - A with its 95 % CI, which clears 0, then B / A): async mean (ms) +50 [+46, +54] (1.50 x); ", answer, StringComparison.Ordinal);
        Assert.EndsWith("; 1 figure within noise; 2 figures not judged (a side without a 95 % CI: fewer than 6 rounds, a lower bound, or not measured per round).", answer, StringComparison.Ordinal);
        AssertAnswerReadsTheTable(comparison);
        Assert.Equal($"p.answer {answer}", RenderedPage.Lines(comparison.ToHtml())[1]);
        Assert.StartsWith($"# {comparison.Title}\n\n**{answer}**\n\n- A: ", comparison.ToMarkdown(), StringComparison.Ordinal);
    }

    [Fact]
    public void TheAnswerCountsEveryRowOnceAndQuotesEachFigureThatMovedAsItsRowForSeededRuns()
    {
        var random = new Random(39);
        for (var pair = 0; pair < 12; pair++)
        {
            double[] Means(double centre, double spread) => [.. Enumerable.Range(0, 6).Select(_ => Math.Round(centre + (random.NextDouble() - 0.5) * spread, 1))];
            var (centreA, centreB) = (50 + random.NextDouble() * 200, 50 + random.NextDouble() * 200);
            var a = Rounded(Means(centreA, random.NextDouble() * 40), verdictFigure: (2, 1.8, 2.2));
            var b = Rounded(Means(pair % 3 == 0 ? centreA : centreB, random.NextDouble() * 40), verdictFigure: (2 + random.NextDouble(), 1.5, 3.5));
            // Every third B ran once (no CI); some A's mean is a lower bound (requests timed out).
            var comparison = ReportComparison.Of(
                WriteSummary($"seeded-{pair}-a", pair % 4 == 1 ? a with { Variants = [a.Variants[0] with { LowerBounds = ["meanMs"] }] } : a),
                WriteSummary($"seeded-{pair}-b", pair % 3 == 2 ? b with { Rounds = null } : b));

            AssertAnswerReadsTheTable(comparison);
        }
    }

    /// <summary>The answer names each row whose B - A is a finding (no "no difference", not "not judged", not "n/a") by its cells, and counts the others by kind, so it cannot say what the table does not.</summary>
    private static void AssertAnswerReadsTheTable(ReportComparison comparison)
    {
        var rows = comparison.Table().Rows;
        var within = rows.Count(r => r[4].StartsWith(Noise.NoDifference, StringComparison.Ordinal));
        var moved = rows.Where(r => !r[4].StartsWith(Noise.NoDifference, StringComparison.Ordinal) && !r[4].Contains("not judged", StringComparison.Ordinal) && !r[4].StartsWith("n/a", StringComparison.Ordinal)).ToList();
        var answer = comparison.Answer();
        Assert.All(moved, r => Assert.Contains($"{(r[0] == "(the run)" ? "the run's" : r[0])} {r[1]} {r[4]} ({r[5]})", answer, StringComparison.Ordinal));
        Assert.Contains(moved.Count == 0 ? "no figure moved beyond noise" : $"{CountText.Of(moved.Count, "figure")} moved beyond noise", answer, StringComparison.Ordinal);
        Assert.Equal(within > 0, answer.Contains($"; {CountText.Of(within, "figure")} within noise", StringComparison.Ordinal));
        var notJudged = rows.Count - moved.Count - within;
        Assert.Equal(notJudged > 0, answer.Contains($"; {CountText.Of(notJudged, "figure")} not judged", StringComparison.Ordinal));
    }

    [Fact]
    public async Task ComparingDifferentExperimentsExitsWith2AndOneLine()
    {
        var a = Write("a", SyntheticReports.LoadRun("fanout", ["async"], 10, 5, (_, _) => 100));
        var b = Write("b", SyntheticReports.Burst(8, new Dictionary<string, int> { ["default-pool"] = 2 }));

        var (code, _, error) = await InvokeAsync("compare", a, b);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.StartsWith("error: not comparable: ", error);
        Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    [Fact]
    public async Task ComparingAFolderThatIsNotAReportExitsWith2AndOneLine()
    {
        var a = Write("a", SyntheticReports.LoadRun("fanout", ["async"], 10, 5, (_, _) => 100));
        var notReport = Directory.CreateDirectory(Path.Combine(_root, "empty")).FullName;

        var (code, _, error) = await InvokeAsync("compare", a, notReport);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Equal($"error: '{notReport}' is not a report folder (no summary.json)", error.Trim());
    }

    [Theory]
    [InlineData("schemaVersion", 3)]
    [InlineData("version", 2)]
    public async Task ComparingASummaryOfAnotherVersionExitsWith2AndOneLineNamingBoth(string member, int version)
    {
        var a = Write("a", SyntheticReports.LoadRun("fanout", ["async"], 10, 5, (_, _) => 100));
        var b = Write("b", SyntheticReports.LoadRun("fanout", ["async"], 10, 5, (_, _) => 100));
        var summary = JsonNode.Parse(File.ReadAllText(Path.Combine(b, "summary.json")))!.AsObject();
        summary.Remove("version");
        summary[member] = version;
        File.WriteAllText(Path.Combine(b, "summary.json"), summary.ToJsonString());

        var (code, _, error) = await InvokeAsync("compare", a, b);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Equal(
            $"error: '{b}' holds a summary.json of version {version}; this runner reads version {RunSummary.CurrentVersion} (run the experiment again with this runner)",
            error.Trim());
    }

    [Fact]
    public async Task ComparingAFileWithNoVersionExitsWith2SayingItIsNoRunnerSummary()
    {
        var a = Write("a", SyntheticReports.LoadRun("fanout", ["async"], 10, 5, (_, _) => 100));
        var b = Path.Combine(_root, "foreign");
        Directory.CreateDirectory(b);
        File.WriteAllText(Path.Combine(b, "summary.json"), """{"experiment": "fanout"}""");

        var (code, _, error) = await InvokeAsync("compare", a, b);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Equal($"error: '{b}' is not a runner summary (no version member); this runner reads summary.json version {RunSummary.CurrentVersion}", error.Trim());
    }

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    private string Write(string name, ExperimentReport report)
    {
        var folder = Path.Combine(_root, name);
        ReportWriter.Write(folder, report, RunnerCommandLine.Format([report.Experiment]));
        return folder;
    }

    /// <summary>A fanout run of one variant, async, measured in six rounds with these means (ms), and the rounds' verdict figure (median, low, high).</summary>
    private static RunSummary Rounded(double[] meansMs, (double Median, double Low, double High) verdictFigure)
    {
        var summary = SyntheticReports.LoadRun("fanout", ["async"], 20, 5, (_, _) => meansMs[0]).Analysed();
        return summary with
        {
            Rounds = new SummaryRounds("async", meansMs.Length, "slowdown", verdictFigure.Median, verdictFigure.Low, verdictFigure.High,
                [.. meansMs.Select((mean, i) => new SummaryRound(i + 1, ["async"], null, "Reproduced", [new SummaryRoundVariant("async", 1000 / mean, mean, mean * 1.1, 10)]))]),
        };
    }

    private string WriteSummary(string name, RunSummary summary)
    {
        var folder = Path.Combine(_root, name);
        ReportWriter.Write(folder, summary);
        return folder;
    }

    private static async Task<(int Code, string Output, string Error)> InvokeAsync(params string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var code = await CommandLine.InvokeAsync(args, output, error, (_, _) => throw new InvalidOperationException("compare must not start a run"));
        return (code, output.ToString(), error.ToString());
    }
}
