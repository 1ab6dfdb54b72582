using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Reports;
using Xunit.Abstractions;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// Issue 13's benchmark, not a timing test: writes the reports of an <c>all</c> run (five experiments, 10 minutes of
/// 1-second samples each, 50 requests a second per variant) from synthetic data and prints the CPU time it took and
/// each report.html's size. Run it alone: dotnet test tests/ConcurrencySandbox.LoadTests.Tests --filter Category=Benchmark --logger "console;verbosity=detailed"
/// </summary>
public sealed class ReportBenchmark(ITestOutputHelper output) : IDisposable
{
    private const int MaxHtmlBytes = 2 * 1024 * 1024;
    private readonly string _out = Path.Combine(Path.GetTempPath(), "report-bench-" + Guid.NewGuid().ToString("N"));

    [Fact]
    [Trait("Category", "Benchmark")]
    public void WritingTheReportsOfAnAllRunIsMeasuredAndEachHtmlStaysUnderTwoMegabytes()
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

        var cpu = Process.GetCurrentProcess().TotalProcessorTime;
        var wall = Stopwatch.StartNew();
        foreach (var report in reports)
        {
            ReportWriter.Write(Path.Combine(_out, report.Experiment), report, RunnerCommandLine.Format(["all"]));
        }
        var cpuSeconds = (Process.GetCurrentProcess().TotalProcessorTime - cpu).TotalSeconds;

        var requests = reports.Sum(r => r.Variants.Sum(v => v.Requests.Count));
        output.WriteLine($"report writing for an all run ({reports.Length} experiments, {requests:N0} requests, {reports.Sum(r => r.Variants.Sum(v => v.Intervals.Count)):N0} intervals): {cpuSeconds:0.000} s CPU (process), {wall.Elapsed.TotalSeconds:0.000} s wall, {Environment.ProcessorCount} cores, {System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription}");
        foreach (var report in reports)
        {
            var bytes = new FileInfo(Path.Combine(_out, report.Experiment, "report.html")).Length;
            output.WriteLine($"{report.Experiment}/report.html: {bytes / 1024.0:0} KiB");
            Assert.InRange(bytes, 1, MaxHtmlBytes);
        }
    }

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }
}
