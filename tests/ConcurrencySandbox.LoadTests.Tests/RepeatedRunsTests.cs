using ConcurrencySandbox.LoadTests.Runs;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary><c>--runs N</c>: verdict agreement and the spread of headline figures, on made-up run results.</summary>
public sealed class RepeatedRunsTests : IDisposable
{
    private readonly string _out = Path.Combine(Path.GetTempPath(), "runs-" + Guid.NewGuid().ToString("N"));

    [Fact]
    public void VerdictsAgreeWhenEveryRunHasTheSameOutcomeWhateverItsFigures()
    {
        RunResult[] runs = [Run("Reproduced", "4.5 x"), Run("Reproduced", "3.9 x")];

        Assert.Empty(RepeatedRuns.Disagreements(runs));
    }

    [Fact]
    public void AVerdictThatChangesOrIsMissingInARunIsADisagreement()
    {
        RunResult[] runs = [Run("Reproduced", "4.5 x"), Run("NotReproduced", "1.1 x"), new RunResult(true, [], [])];

        Assert.Equal(["fanout"], RepeatedRuns.Disagreements(runs));
    }

    [Theory]
    [InlineData("4.5 x (120 ms)", 4.5)]
    [InlineData("1,000,000 cycles", 1_000_000.0)]
    [InlineData("101.3 % [97, 105] n=10, min 96", 101.3)]
    [InlineData("none", null)]
    public void AHeadlineFiguresValueIsItsLeadingNumber(string text, double? value)
    {
        Assert.Equal(value, new HeadlineFigure("f", text).Value);
    }

    [Fact]
    public void TheSpreadAcrossRunsGivesMedianMinMaxAndRangeOverMedian()
    {
        Assert.Equal("median 4 [no 95 % CI below 6 repeats], min 3, max 5, spread 50 % of the median", RepeatedRuns.SpreadOf([3, 5, 4]));
    }

    [Fact]
    public async Task EachRunGetsItsOwnFolderAndTheSummarySaysWhetherTheVerdictsAgreed()
    {
        var folders = new List<string>();
        var outcomes = new Queue<string>(["Reproduced", "NotReproduced"]);
        using var console = new StringWriter();

        var passed = (await RepeatedRuns.RunAsync(2, _out, folder =>
        {
            folders.Add(folder);
            // Run 1 writes its report and a sub-report (a matrix's fan-out); run 2 writes none.
            if (folders.Count == 1)
            {
                Directory.CreateDirectory(Path.Combine(folder, "fanout-1cpu"));
                File.WriteAllText(Path.Combine(folder, "report.html"), "");
                File.WriteAllText(Path.Combine(folder, "fanout-1cpu", "report.html"), "");
            }
            return Task.FromResult(Run(outcomes.Dequeue(), "2 x"));
        }, console)).Passed;

        Assert.True(passed); // both runs passed their thresholds; the disagreement is reported, not failed
        Assert.Equal([Path.Combine(_out, "run-1"), Path.Combine(_out, "run-2")], folders);
        var summary = File.ReadAllText(Path.Combine(_out, RepeatedRuns.FileName));
        Assert.Contains("The verdicts disagree on: fanout.", summary, StringComparison.Ordinal);
        Assert.Contains("| fanout: ratio | 2 x | 2 x | median 2 [no 95 % CI below 6 repeats], min 2, max 2, spread 0 % of the median |", summary, StringComparison.Ordinal);
        Assert.Contains("the verdicts disagree on fanout", console.ToString(), StringComparison.Ordinal);
        Assert.Contains("- run 1: [run-1/fanout-1cpu/report.html](run-1/fanout-1cpu/report.html), [run-1/report.html](run-1/report.html)", summary, StringComparison.Ordinal);
        Assert.Contains("- run 2: no report.html was written", summary, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AStoppedRunEndsTheSeriesWithItsResultAndNoComparisonOfPartOfIt()
    {
        var started = 0;
        using var console = new StringWriter();

        var result = await RepeatedRuns.RunAsync(3, _out, folder =>
        {
            started++;
            return Task.FromResult(Run("NotAssessed", "2 x") with { Stopped = new RunStopped("partial: stopped after variant sync step 1 of 5", folder) });
        }, console);

        Assert.Equal(1, started);
        Assert.Equal(Path.Combine(_out, "run-1"), result.Stopped?.Folder);
        Assert.False(File.Exists(Path.Combine(_out, RepeatedRuns.FileName)));
    }

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }

    private static RunResult Run(string outcome, string ratio) =>
        new(true, [new RunVerdict("fanout", outcome, $"{outcome}: ratio {ratio}")], [new HeadlineFigure("fanout: ratio", ratio)]);
}
