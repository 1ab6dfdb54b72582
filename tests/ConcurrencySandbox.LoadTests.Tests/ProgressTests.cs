using ConcurrencySandbox.LoadTests.Progress;
using Microsoft.Extensions.Time.Testing;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>The console's progress: the status line's figures and remaining-time arithmetic on a fake clock, and which lines go where.</summary>
public sealed class ProgressTests
{
    private static readonly RunPlanned ThreeMinutes = new("fanout, quick", [new("fanout/threadpool", 60, 10), new("fanout/dedicated", 60, 10), new("fanout/async", 60, 10)]);

    private readonly FakeTimeProvider _clock = new(new DateTimeOffset(2026, 11, 25, 15, 0, 0, TimeSpan.Zero));

    [Fact]
    public void RemainingTimeIsTheRunningVariantsUnspentPlanAndEveryLaterVariant()
    {
        var progress = new RunProgress(ThreeMinutes, _clock, []);
        Assert.Equal(TimeSpan.FromSeconds(180), progress.State.Remaining(_clock.GetUtcNow()));

        _clock.Advance(TimeSpan.FromSeconds(5));
        progress.Publish(new VariantStarted(0, 3, "fanout/threadpool", "/api/fanout", "#d62728"));
        _clock.Advance(TimeSpan.FromSeconds(20));

        Assert.Equal(TimeSpan.FromSeconds(40 + 60 + 60), progress.State.Remaining(_clock.GetUtcNow()));
        Assert.False(progress.State.RemainingIsLowerBound);
        Assert.Contains("[1/3] fanout/threadpool  step 1/10", StatusLine.Format(progress.State, _clock.GetUtcNow()));
        Assert.Contains("0:25 elapsed, ~2:40 left", StatusLine.Format(progress.State, _clock.GetUtcNow()));

        // Past its plan (the drain, a slow server), the running variant counts 0 left, never negative.
        _clock.Advance(TimeSpan.FromSeconds(100));
        Assert.Equal(TimeSpan.FromSeconds(120), progress.State.Remaining(_clock.GetUtcNow()));
    }

    [Fact]
    public void LaterVariantsCarryTheTimeTheFinishedOnesTookBeyondTheirPlan()
    {
        var progress = new RunProgress(ThreeMinutes, _clock, []);
        progress.Publish(new VariantStarted(0, 3, "fanout/threadpool", "/api/fanout", "#d62728"));
        _clock.Advance(TimeSpan.FromSeconds(70));
        progress.Publish(new VariantStarted(1, 3, "fanout/dedicated", "/api/fanout", "#9467bd"));

        Assert.Equal(10, progress.State.MeanOverheadSeconds, 6);
        Assert.Equal(TimeSpan.FromSeconds(60 + 60 + 10), progress.State.Remaining(_clock.GetUtcNow()));
        Assert.Contains("1:10 elapsed, ~2:10 left", StatusLine.Format(progress.State, _clock.GetUtcNow()));
    }

    [Fact]
    public void AVariantOfUnknownLengthMakesTheRemainingTimeALowerBound()
    {
        var plan = new RunPlanned("coldstart", [new("coldstart/default-pool", 0, 0), new("coldstart/min-workers-200", 0, 0), new("sleep/sync", 30, 3)]);
        var progress = new RunProgress(plan, _clock, []);
        progress.Publish(new VariantStarted(0, 3, "coldstart/default-pool", "/api/sleep/sync", "#e377c2"));

        Assert.True(progress.State.RemainingIsLowerBound);
        Assert.Contains(">=0:30 left", StatusLine.Format(progress.State, _clock.GetUtcNow()));
        // No planned steps: the step is counted, not out of a total.
        Assert.Contains("coldstart/default-pool  step 1  ", StatusLine.Format(progress.State, _clock.GetUtcNow()));
    }

    [Fact]
    public void StatusLineShowsTheLatestIntervalTheVariantsFailuresAndThePool()
    {
        var progress = new RunProgress(ThreeMinutes, _clock, []);
        progress.Publish(new VariantStarted(0, 3, "fanout/threadpool", "/api/fanout", "#d62728"));
        progress.Publish(Interval("fanout/threadpool", load: 8, failed: 2, p99Ms: 640, threads: 9, queue: 40));
        progress.Publish(Step(8, 60, 2, 500, 640));
        progress.Publish(Interval("fanout/threadpool", load: 12, failed: 3, p99Ms: 1234, threads: 14, queue: 230));
        _clock.Advance(TimeSpan.FromSeconds(47));

        var line = StatusLine.Format(progress.State, _clock.GetUtcNow());

        Assert.Equal("[1/3] fanout/threadpool  step 2/10  users 12  0:47 elapsed, ~2:13 left  rps 11.5  p99 1.23 s  failed 5  pool 14 threads, queue 230", line);
    }

    [Fact]
    public void AnIntervalWithoutAnAnswerShowsNoLatency()
    {
        var progress = new RunProgress(ThreeMinutes, _clock, []);
        progress.Publish(new VariantStarted(0, 3, "fanout/threadpool", "/api/fanout", "#d62728"));
        progress.Publish(Interval("fanout/threadpool", load: 40, failed: 0, p99Ms: null, threads: null, queue: null));

        var line = StatusLine.Format(progress.State, _clock.GetUtcNow());

        Assert.Contains("p99 n/a", line);
        Assert.Contains("pool n/a", line);
        Assert.Contains("p99=n/a", StatusLine.Interval(Interval("fanout/threadpool", 40, 0, null, null, null)));
    }

    [Theory]
    [InlineData(0, "0:00")]
    [InlineData(47, "0:47")]
    [InlineData(383, "6:23")]
    [InlineData(3725, "1:02:05")]
    public void ClockReadsMinutesAndSecondsThenHours(int seconds, string expected) =>
        Assert.Equal(expected, StatusLine.Clock(TimeSpan.FromSeconds(seconds)));

    [Fact]
    public async Task TheStatusLineStaysUnderEveryLineAndIsRedrawnOnItsTimer()
    {
        // The console's own thread writes; each step waits until what it queued is on the terminal.
        using var terminal = new LockedWriter();
        var status = "status A";
        using (var console = new StatusConsole(terminal, () => Volatile.Read(ref status), () => 80, _clock))
        {
            await Eventually.TrueAsync(() => terminal.ToString().EndsWith("status A", StringComparison.Ordinal), "the first status");
            console.WriteLine("-- first line");
            await Eventually.TrueAsync(() => terminal.ToString().Contains("-- first line", StringComparison.Ordinal) && terminal.ToString().EndsWith("status A", StringComparison.Ordinal), "the first line");
            Volatile.Write(ref status, "status B");
            _clock.Advance(TimeSpan.FromSeconds(1));
            await Eventually.TrueAsync(() => terminal.ToString().EndsWith("status B", StringComparison.Ordinal), "the redraw");
            console.WriteLine("-- second line");
        }

        Assert.Equal(
            "status A\r\u001b[2K-- first line\nstatus A\r\u001b[2Kstatus B\r\u001b[2K-- second line\nstatus B\r\u001b[2Kstatus B\n",
            terminal.ToString().Replace(Environment.NewLine, "\n", StringComparison.Ordinal));
    }

    [Fact]
    public void TheStatusLineIsCutToTheTerminalsWidth()
    {
        using var terminal = new StringWriter();
        using (new StatusConsole(terminal, () => new string('x', 100), () => 40, _clock))
        {
        }

        Assert.All(terminal.ToString().Replace("\u001b[2K", "", StringComparison.Ordinal).Split('\r', '\n'), line => Assert.True(line.Length < 40, $"{line.Length} columns: {line}"));
    }

    [Theory]
    [InlineData(false, false, true)]
    [InlineData(true, false, false)]
    [InlineData(true, true, true)]
    public void IntervalLinesGoToARedirectedOutputOrWithVerboseAndStepLinesAlways(bool terminal, bool verbose, bool intervalLines)
    {
        using var output = new StringWriter();
        using (var session = ProgressSession.Start(ThreeMinutes, output, new ProgressOptions(terminal ? () => 200 : null, verbose, LivePort: null), _clock))
        {
            session.Progress.Publish(new VariantStarted(0, 3, "fanout/threadpool", "/api/fanout", "#d62728"));
            session.Progress.Publish(Interval("fanout/threadpool", 4, 0, 1000, 4, 0));
            session.Progress.Publish(Step(4, 24, 0, 1000, 1010));
        }

        var text = output.ToString();
        // bench-vs-wrk.sh waits for lines starting "compute/sync t=": the interval line keeps that start.
        Assert.Equal(intervalLines, text.Contains("fanout/threadpool t=", StringComparison.Ordinal));
        // The step line is a running figure and says so (the requests sent in the step that had ended by its close); the
        // final one, by the step each request was sent in, is printed from the summary at the end.
        Assert.Contains("fanout/threadpool step users=4 0.0-6.0s so far (sent in it, ended by its close): ended=24 ended/s=4 p50=1000ms p99=1010ms failed=0 timedout=0", text);
        Assert.Equal(terminal, text.Contains('\r', StringComparison.Ordinal));
    }

    private static StepEnded Step(double users, long requests, long failed, double p50Ms, double p99Ms) =>
        new("fanout/threadpool", "users", 0, 6, requests, failed, 0, requests / 6.0, new(users, p50Ms, p99Ms, (requests - failed) / 6.0, requests, 0, 0, null), null);

    private static IntervalEnded Interval(string series, double load, long failed, double? p99Ms, int? threads, long? queue) =>
        new(series, 6, "users", load, 11.5, 60, failed, 0, p99Ms / 2, p99Ms / 2, p99Ms, p99Ms, threads, queue, Partial: false);

    [Fact]
    public void TheLivePageColoursEachVariantAsItsReportDoesEvenWhenTheirOwnColoursClash()
    {
        // Nine names the palette does not know, over its eight colours for such names: two share an own colour, and the
        // report gives the later one a spare colour; the live page must draw it in that one too.
        string[] names = [.. Enumerable.Range(1, 9).Select(i => $"step-{i}")];
        var started = new StartedColours();
        var progress = new RunProgress(new RunPlanned("clash", []), _clock, [started]);

        foreach (var name in names)
        {
            progress.VariantStarting("clash", new(name), "/x");
        }
        Assert.True(progress.Flush());

        var report = SyntheticReports.LoadRun("clash", names, 2, 5, (_, _) => 20).Analysed();
        Assert.Equal(report.Variants.Select(v => v.Color), started.Colours);
    }

    private sealed class StartedColours : IProgressListener
    {
        public List<string> Colours { get; } = [];

        public void On(ProgressEvent e)
        {
            if (e is VariantStarted started)
            {
                Colours.Add(started.Color);
            }
        }
    }
}
