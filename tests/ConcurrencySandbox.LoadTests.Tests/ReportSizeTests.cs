using System.Diagnostics;
using System.Globalization;
using ConcurrencySandbox.LoadTests.Reports;
using Xunit.Abstractions;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// The reports of a long <c>all</c> run (five experiments, 10 minutes of 1-second samples each, 50 requests a second
/// per variant, from synthetic data) must stay small enough to open in a browser: every report.html under 2 MB.
/// The CPU time the writing took is printed (a benchmark figure for docs/notebook/loadtests.md, not asserted).
/// </summary>
public sealed class ReportSizeTests(ITestOutputHelper output) : IDisposable
{
    private const int MaxHtmlBytes = 2 * 1024 * 1024;
    private readonly string _out = Path.Combine(Path.GetTempPath(), "report-size-" + Guid.NewGuid().ToString("N"));

    [Fact]
    public void EveryReportHtmlOfATenMinuteAllRunStaysUnderTwoMegabytes()
    {
        const double seconds = 600;
        ExperimentReport[] reports =
        [
            SyntheticReports.LoadRun("compute", ["sync", "taskrun"], seconds, 50, (_, _) => 80),
            SyntheticReports.LoadRun("spinwait", ["sync", "taskrun"], seconds, 50, (_, _) => 60),
            SyntheticReports.LoadRun("sleep", ["sync", "taskrun", "async"], seconds, 50, (name, t) => name == "async" ? 100 : 200 + t),
            SyntheticReports.LoadRun("fanout", ["threadpool", "sync-over-async", "dedicated", "async"], seconds, 50, (name, t) => name.Contains("pool") || name.Contains("sync-") ? 1000 + 50 * t : 1000),
            SyntheticReports.Burst(64, new Dictionary<string, int> { ["default-pool"] = 4, ["min-workers-200"] = 64 }),
        ];

        var cpuBefore = Process.GetCurrentProcess().TotalProcessorTime;
        foreach (var report in reports)
        {
            ReportWriter.Write(Path.Combine(_out, report.Experiment), report, RunnerCommandLine.Format(["all"]));
        }
        var cpu = Process.GetCurrentProcess().TotalProcessorTime - cpuBefore;
        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"writing the five reports took {cpu.TotalMilliseconds:0} ms of CPU (the whole test process); report.html sizes: {string.Join(", ", reports.Select(r => $"{r.Experiment} {new FileInfo(Path.Combine(_out, r.Experiment, "report.html")).Length / 1024} KB"))}"));

        Assert.All(reports, report => Assert.InRange(new FileInfo(Path.Combine(_out, report.Experiment, "report.html")).Length, 1, MaxHtmlBytes));
    }

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }
}
