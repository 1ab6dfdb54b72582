using System.Text.Json.Nodes;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Runs;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary><c>report PATH/summary.json</c>: every file of a report folder is a function of its summary.json alone.</summary>
public sealed class ReportCommandTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "report-" + Guid.NewGuid().ToString("N"));

    private static readonly string[] Rendered = ["summary.md", "report.html", "curves.csv", "steps.csv", "telemetry.csv"];

    [Fact]
    public async Task ReportRendersEveryFileAgainFromSummaryJsonAloneWithoutRunningAnything()
    {
        // Timed-out requests (lower bounds), steps and a knee: the analysis's figures, not only the raw series.
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 ? 90_000 : 100);
        var folder = Path.Combine(_root, "run");
        ReportWriter.Write(folder, report, RunnerCommandLine.Format(["fanout", "--profile", "quick"]));
        var written = Rendered.ToDictionary(file => file, file => File.ReadAllText(Path.Combine(folder, file)));
        foreach (var file in Rendered)
        {
            File.Delete(Path.Combine(folder, file));
        }

        var (code, output, error) = await InvokeAsync("report", Path.Combine(folder, "summary.json"));

        Assert.Equal(CommandLine.ExitOk, code);
        Assert.Equal("", error);
        Assert.All(Rendered, file => Assert.Equal(written[file], File.ReadAllText(Path.Combine(folder, file))));
        Assert.Contains("== fanout: ", output);
        Assert.Contains("nothing run", output);
    }

    [Fact]
    public async Task ReportWordsASummarysDerivedSentencesAsThisBuildDoesAndWritesThemBackIntoSummaryJson()
    {
        // A summary written by an earlier build: its answer, knee sentences and latency note in that build's words.
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 ? 90_000 : 100);
        var folder = Path.Combine(_root, "earlier");
        var today = ReportWriter.Write(folder, report, "fanout");
        var earlier = today with
        {
            Answer = "an earlier build's answer",
            Words = today.Words with { LatencyNote = "an earlier build's latency note" },
            Variants = [.. today.Variants.Select(v => v with { Curve = v.Curve! with { Knee = null, Line = v.Name + ": an earlier build's knee sentence" } })],
        };
        File.WriteAllText(Path.Combine(folder, "summary.json"), earlier.ToJson());

        var (code, _, error) = await InvokeAsync("report", Path.Combine(folder, "summary.json"));

        Assert.Equal(CommandLine.ExitOk, code);
        Assert.Equal("", error);
        var written = RunSummary.Parse(File.ReadAllText(Path.Combine(folder, "summary.json")));
        Assert.Equal(today.ToJson(), written.ToJson());
        var markdown = File.ReadAllText(Path.Combine(folder, "summary.md"));
        Assert.Contains(today.Answer!, markdown);
        Assert.Contains(today.Words.LatencyNote, markdown);
        Assert.All(today.Variants, v => Assert.Contains(v.Curve!.Line, markdown));
        Assert.DoesNotContain("an earlier build's", markdown + File.ReadAllText(Path.Combine(folder, "report.html")));
    }

    [Fact]
    public async Task ReportOfAnOlderSummaryExitsWith2AndOneLineNamingTheVersionItReads()
    {
        var folder = Path.Combine(_root, "old");
        ReportWriter.Write(folder, SyntheticReports.LoadRun("fanout", ["async"], 10, 5, (_, _) => 100), "fanout");
        var summary = JsonNode.Parse(File.ReadAllText(Path.Combine(folder, "summary.json")))!.AsObject();
        summary.Remove("version");
        summary["schemaVersion"] = 3;
        File.WriteAllText(Path.Combine(folder, "summary.json"), summary.ToJsonString());

        var (code, _, error) = await InvokeAsync("report", Path.Combine(folder, "summary.json"));

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Equal($"error: '{Path.Combine(folder, "summary.json")}' holds a summary.json of version 3; this runner reads version {RunSummary.CurrentVersion} (run the experiment again with this runner)", error.Trim());
    }

    [Theory]
    [InlineData("""{"name": "some-package", "version": "1.0.0"}""")]
    [InlineData("""{"experiment": "fanout"}""")]
    [InlineData("not json at all")]
    public async Task ReportOfAForeignFileExitsWith2AndOneLine(string content)
    {
        Directory.CreateDirectory(_root);
        var file = Path.Combine(_root, "package.json");
        File.WriteAllText(file, content);

        var (code, _, error) = await InvokeAsync("report", file);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains($"this runner reads summary.json version {RunSummary.CurrentVersion}", error);
    }

    /// <summary>A matrix of two core counts (a sweep each, and a fan-out each with timed-out requests) written by the matrix command's own <see cref="MatrixReport"/>.</summary>
    private string WrittenMatrix(string name, int seed)
    {
        var random = new Random(seed);
        var folder = Path.Combine(_root, name);
        var runs = new[] { 1, 2 }.Select(cpus => new CoreCountRun(cpus, null, cpus,
            [.. new long[] { 1, 1_000, 1_000_000 }.Select(amount => MatrixTests.Row(amount, 80 + (random.NextDouble() * 30 * cpus), random.NextDouble() * 10))], null,
            SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (v, t) => v == "threadpool" && t >= 10 / cpus ? 90_000 : 100 + random.Next(50), cpus).Analysed())).ToList();
        SyntheticReports.Matrix(new MatrixOptions([1, 2], null, ["sweep", "fanout"], 1_000_000, 6), folder: folder).Write(runs, null);
        return folder;
    }

    /// <summary>Every file under <paramref name="folder"/> but the results report reads (summary.json, matrix.json), by path relative to it, with its text.</summary>
    private static Dictionary<string, string> Pages(string folder) =>
        Directory.GetFiles(folder, "*", SearchOption.AllDirectories).Where(f => Path.GetFileName(f) is not (ReportWriter.SummaryFileName or MatrixFile.FileName))
            .ToDictionary(f => Path.GetRelativePath(folder, f), File.ReadAllText);

    [Theory]
    [InlineData(5)]
    [InlineData(39)]
    public async Task ReportRendersEveryPageOfAMatrixAgainFromMatrixJsonAloneThroughTheMatrixsOwnWriter(int seed)
    {
        var folder = WrittenMatrix("matrix", seed);
        var written = Pages(folder);
        var json = File.ReadAllText(Path.Combine(folder, MatrixFile.FileName));
        foreach (var page in written.Keys)
        {
            File.Delete(Path.Combine(folder, page));
        }

        var (code, output, error) = await InvokeAsync("report", Path.Combine(folder, MatrixFile.FileName));

        Assert.Equal(CommandLine.ExitOk, code);
        Assert.Equal("", error);
        Assert.Contains("matrix.md", written.Keys);
        Assert.Contains(Path.Combine("fanout-2cpu", "report.html"), written.Keys);
        Assert.Equal(written, Pages(folder));
        Assert.Equal(json, File.ReadAllText(Path.Combine(folder, MatrixFile.FileName)));
        Assert.Contains("== hypothesis 3: Hypothesis 3 of seed 004", output);
        Assert.Contains("nothing run", output);
    }

    [Fact]
    public async Task ReportOfARunsFolderRendersEachRunAndRunsMdAgain()
    {
        var series = Path.Combine(_root, "series");
        var results = new[] { 1, 2 }.Select(run =>
        {
            var folder = WrittenMatrix(Path.Combine("series", RepeatedRuns.RunFolder(run)), run);
            return MatrixFile.Render(Path.Combine(folder, MatrixFile.FileName), "x", folder);
        }).ToList();
        RepeatedRuns.Write(series, results);
        var runsMd = File.ReadAllText(Path.Combine(series, RepeatedRuns.FileName));
        File.Delete(Path.Combine(series, RepeatedRuns.FileName));
        File.Delete(Path.Combine(series, "run-2", "matrix.md"));

        var (code, output, error) = await InvokeAsync("report", series);

        Assert.Equal(CommandLine.ExitOk, code);
        Assert.Equal("", error);
        Assert.Equal(runsMd, File.ReadAllText(Path.Combine(series, RepeatedRuns.FileName)));
        Assert.True(File.Exists(Path.Combine(series, "run-2", "matrix.md")));
        Assert.Contains("(run-1, run-2) in ", output);
    }

    [Fact]
    public async Task ReportOfAnAllRunsFolderRendersEachExperimentOfEachRunInAllsOrderAndRunsMdAgain()
    {
        // `all --runs 2`: run-N/<experiment>/summary.json and no result of its own at either level (refused before).
        var series = Path.Combine(_root, "all");
        var results = new[] { 1, 2 }.Select(run => RunResult.Combine(new[] { ("compute", new[] { "sync", "taskrun" }), ("fanout", ["threadpool", "async"]) }.Select(e =>
        {
            var report = SyntheticReports.LoadRun(e.Item1, e.Item2, 12, 4, (name, t) => name == e.Item2[0] && t >= 6 ? 400 * run : 100);
            return RunResult.Of(ReportWriter.Write(Path.Combine(series, RepeatedRuns.RunFolder(run), e.Item1), report, RunnerCommandLine.Format(["all", "--runs", "2"])));
        }))).ToList();
        RepeatedRuns.Write(series, results);
        var runsMd = File.ReadAllText(Path.Combine(series, RepeatedRuns.FileName));
        File.Delete(Path.Combine(series, RepeatedRuns.FileName));
        File.Delete(Path.Combine(series, "run-2", "fanout", "report.html"));

        var (code, output, error) = await InvokeAsync("report", series);

        Assert.Equal(CommandLine.ExitOk, code);
        Assert.Equal("", error);
        Assert.Equal(runsMd, File.ReadAllText(Path.Combine(series, RepeatedRuns.FileName)));
        Assert.True(File.Exists(Path.Combine(series, "run-2", "fanout", "report.html")));
        Assert.Contains("(run-1, run-2) in ", output);
        Assert.True(output.IndexOf("== compute: ", StringComparison.Ordinal) < output.IndexOf("== fanout: ", StringComparison.Ordinal), output);

        // One run of `all` alone: each experiment's folder, in all's order.
        (code, output, error) = await InvokeAsync("report", Path.Combine(series, "run-1"));
        Assert.Equal((CommandLine.ExitOk, ""), (code, error));
        Assert.Contains("(compute, fanout) in ", output);
    }

    [Theory]
    [InlineData(null, "written before matrix.json had a version")]
    [InlineData(0, "of version 0")]
    [InlineData(2, "of version 2")]
    public async Task ReportOfAMatrixJsonOfAnotherVersionExitsWith2AndOneLineNamingTheVersionItReads(int? version, string says)
    {
        var folder = WrittenMatrix("old", 1);
        var matrix = JsonNode.Parse(File.ReadAllText(Path.Combine(folder, MatrixFile.FileName)))!.AsObject();
        matrix.Remove("version");
        if (version is { } v)
        {
            matrix["version"] = v;
        }
        File.WriteAllText(Path.Combine(folder, MatrixFile.FileName), matrix.ToJsonString());

        var (code, _, error) = await InvokeAsync("report", folder);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains(says, error, StringComparison.Ordinal);
        Assert.EndsWith($"this runner reads version {MatrixFile.CurrentVersion} (run the matrix again with this runner)", error.Trim(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("""{"name": "some-package", "version": "1.0.0"}""")]
    [InlineData("""{"version": 1, "runs": "many"}""")]
    [InlineData("""[1, 2]""")]
    [InlineData("not json at all")]
    public async Task ReportOfAForeignMatrixJsonExitsWith2AndOneLine(string content)
    {
        Directory.CreateDirectory(_root);
        var file = Path.Combine(_root, MatrixFile.FileName);
        File.WriteAllText(file, content);

        var (code, _, error) = await InvokeAsync("report", file);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains($"this runner reads matrix.json version {MatrixFile.CurrentVersion}", error);
    }

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    private static async Task<(int Code, string Output, string Error)> InvokeAsync(params string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var code = await CommandLine.InvokeAsync(args, output, error, (_, _) => throw new InvalidOperationException("report must not start a run"));
        return (code, output.ToString(), error.ToString());
    }
}
