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

    private static async Task<(int Code, string Output, string Error)> InvokeAsync(params string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var code = await CommandLine.InvokeAsync(args, output, error, (_, _) => throw new InvalidOperationException("compare must not start a run"));
        return (code, output.ToString(), error.ToString());
    }
}
