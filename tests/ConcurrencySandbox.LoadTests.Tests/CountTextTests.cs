using System.Text.RegularExpressions;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// Every count a page prints (requests, messages, failures, timeouts, steps, users) reads one way, "3,895,458", on
/// report.html, summary.md, the matrix's pages and the console; and every noun takes its number, never "core(s)".
/// </summary>
public sealed partial class CountTextTests : IDisposable
{
    private readonly string _out = Path.Combine(Path.GetTempPath(), "count-text-" + Guid.NewGuid().ToString("N"));

    // Seeded counts no run here makes by chance, so a page that prints one ungrouped is caught.
    private const long Requests = 3_895_458, Failed = 1_234_567, StepRequests = 2_345_678;

    [Fact]
    public void ACountIsGroupedInThousandsAndItsNounTakesItsNumber()
    {
        Assert.Equal("3,895,458", CountText.Of(3_895_458));
        Assert.Equal("0", CountText.Of(0));
        Assert.Equal("1 core", CountText.Of(1, "core"));
        Assert.Equal("2 cores", CountText.Of(2, "core"));
        Assert.Equal("0 requests", CountText.Of(0, "request"));
        Assert.Equal("1,000 clients", CountText.Of(1_000, "client"));
        Assert.Equal("1 user", ResponseCurve.LoadText(1, "users"));
        Assert.Equal("5,124 clients", ResponseCurve.LoadText(5_124, "clients"));
        Assert.Equal("2.5 req/s", ResponseCurve.LoadText(2.5, "rate"));
        Assert.Equal("1 request", CountText.Amount(1.04, "request"));
        Assert.Equal("1.1 requests", CountText.Amount(1.06, "request"));
        Assert.Equal("1,250.5 requests", CountText.Amount(1_250.5, "request"));
    }

    /// <summary>Every report kind with a measured variant (a stopped run before its first step has no count to print).</summary>
    public static TheoryData<string> Kinds() => ["fanout", "fanout-timing-out", "coldstart", "find-capacity", "streaming", "no-answer", "run-url"];

    [Theory]
    [MemberData(nameof(Kinds))]
    public void EveryPageKindPrintsItsSeededCountsGroupedOnThePageInSummaryMdAndOnTheConsole(string kind)
    {
        var summary = WithSeededCounts(FirstScreenTests.Summary(kind));

        ReportWriter.Write(_out, summary);
        var page = string.Join("\n", RenderedPage.LinesOf(Path.Combine(_out, "report.html")));
        var markdown = File.ReadAllText(Path.Combine(_out, "summary.md"));
        var console = new StringWriter();
        _ = ReportWriter.PrintOutcome(summary, _out, console);

        foreach (var (where, text) in new[] { ("report.html", page), ("summary.md", markdown) })
        {
            Assert.Contains("3,895,458", text, StringComparison.Ordinal);
            AssertNoUngroupedSeed(kind, where, text);
        }
        AssertNoUngroupedSeed(kind, "the console", console.ToString());
        if (summary.Variants.Any(v => v.Steps.Count > 1) || summary.Capacity?.Steps is { Count: > 0 })
        {
            Assert.Contains("sent=2,345,678", console.ToString(), StringComparison.Ordinal);
        }
    }

    [Fact]
    public void TheMatrixPagesGroupEachFanOutsCounts()
    {
        var runs = new[] { new CoreCountRun(1, null, 1, [], null, WithSeededCounts(FirstScreenTests.Summary("fanout-timing-out"))) };

        var html = string.Join("\n", RenderedPage.Lines(MatrixRunner.Html(runs, "verdict", SyntheticReports.Matrix(new MatrixOptions([1], null, ["fanout"], 1_000, 1)), null)));
        var markdown = MatrixRunner.Markdown(runs, "verdict", SyntheticReports.Matrix(new MatrixOptions([1], null, ["fanout"], 1_000, 1)), null);

        foreach (var (where, text) in new[] { ("the matrix's report.html", html), ("matrix.md", markdown) })
        {
            Assert.Contains("of 3,895,458", text, StringComparison.Ordinal);
            AssertNoUngroupedSeed("matrix", where, text);
        }
    }

    [Fact]
    public void OneOfAnythingIsSingularAndNoPageSaysAnS()
    {
        // "Measured in 1 of 1 interleaved round(s)", "1 HTTP error(s)", "1 core(s)", "1 marker(s) outside the x axis".
        var summary = FirstScreenTests.Summary("fanout");
        var async = summary.Variants[^1];
        var oneError = async with
        {
            Failed = 1,
            Outcomes = async.Outcomes with { HttpErrors = 1, Failed = 1, Ok = async.Outcomes.Ok - 1 },
        };
        var once = summary with
        {
            Variants = [.. summary.Variants.SkipLast(1), oneError],
            Rounds = new SummaryRounds("sync-over-async async", 1, null, null, null, null, [new SummaryRound(1, ["sync-over-async", "async"], null, "Reproduced", [])]),
        };

        var lines = RenderedPage.Lines(ReportWriter.ReportHtml(once));

        Assert.Contains(lines, line => line.Contains("Measured in 1 of 1 interleaved round,", StringComparison.Ordinal));
        Assert.Contains(lines, line => line.Contains("(1 HTTP error)", StringComparison.Ordinal));
        Assert.Equal(["1 core", "2 cores"], new[] { 1, 2 }.Select(cpus => new CoreCountRun(cpus, null, cpus, [], null, null).Label));
        Assert.DoesNotMatch(WordWithS(), string.Join("\n", lines));
        Assert.DoesNotMatch(WordWithS(), ReportWriter.SummaryMarkdown(once));
    }

    /// <summary>The summary with its first variant's counts, its steps' and its capacity steps' set to the seeded ones.</summary>
    private static RunSummary WithSeededCounts(RunSummary s) => s with
    {
        Variants =
        [
            .. s.Variants.Select((v, i) => i > 0 ? v : v with
            {
                Requests = Requests,
                Failed = v.Failed > 0 ? Failed : 0,
                Ok = v.Failed > 0 ? Requests - Failed : Requests,
                Outcomes = v.Outcomes with
                {
                    Requests = Requests,
                    Failed = v.Failed > 0 ? Failed : 0,
                    TimedOut = v.Outcomes.TimedOut > 0 ? Failed : 0,
                    Ok = v.Failed > 0 ? Requests - Failed : Requests,
                    Completed = v.Outcomes.Completed > 0 ? Requests - (v.Outcomes.TimedOut > 0 ? Failed : 0) : 0,
                },
                Steps = [.. v.Steps.Select(step => step with { Outcomes = step.Outcomes with { Requests = StepRequests } })],
            }),
        ],
        Capacity = s.Capacity is { } c ? c with { Steps = c.Steps is { } steps ? [.. steps.Select(step => step with { Requests = StepRequests })] : null } : null,
    };

    private static void AssertNoUngroupedSeed(string kind, string where, string text)
    {
        foreach (var seed in new[] { Requests, Failed, StepRequests })
        {
            Assert.False(text.Contains(seed.ToString(System.Globalization.CultureInfo.InvariantCulture), StringComparison.Ordinal), $"{kind}: {where} prints the count {seed} ungrouped:\n{text}");
        }
    }

    // "round(s)", "error(s)": a word with "(s)" on it ("latency (s)", seconds, has a space before it).
    [GeneratedRegex(@"\w\(s\)")]
    internal static partial Regex WordWithS();

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }
}
