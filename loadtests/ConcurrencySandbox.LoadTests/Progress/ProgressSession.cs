using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>How a run shows its progress: <paramref name="TerminalWidth"/> is set when the output is a terminal (the status line), null otherwise (plain lines).</summary>
/// <param name="Verbose">The per-interval lines on a terminal too (<c>--verbose</c>).</param>
/// <param name="LivePort">Serve the live page on this loopback port (0: any free port), or null for no page (<c>--live [PORT]</c>).</param>
internal sealed record ProgressOptions(Func<int>? TerminalWidth, bool Verbose, int? LivePort);

/// <summary>
/// A run's progress output for its whole length: the console (a status line on a terminal, plain lines otherwise), the
/// live page's feed and server when asked for, and the <see cref="RunProgress"/> that feeds them.
/// </summary>
internal sealed class ProgressSession : IDisposable
{
    private static readonly TimeSpan DeliveryWait = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan ReportFetchWait = TimeSpan.FromSeconds(30);

    private readonly StatusConsole? _status;
    private readonly LiveFeed? _feed;
    private readonly LiveServer? _live;
    private readonly StallWatch _stallWatch;
    private bool _reportWritten;
    private bool _ended;

    private ProgressSession(TextWriter console, RunProgress progress, StatusConsole? status, LiveFeed? feed, LiveServer? live, TimeProvider clock)
    {
        Console = console;
        Progress = progress;
        _status = status;
        _feed = feed;
        _live = live;
        _stallWatch = new StallWatch(() => progress.State, console, clock, () => StackSampler.OwnBlockedFrames());
    }

    /// <summary>Where the run's lines go: above the status line on a terminal.</summary>
    public TextWriter Console { get; }

    public RunProgress Progress { get; }

    /// <summary>Starts the run's progress: the live server first (its address is the first line printed), then the status line.</summary>
    public static ProgressSession Start(RunPlanned plan, TextWriter console, ProgressOptions options, TimeProvider clock)
    {
        var feed = options.LivePort is null ? null : new LiveFeed();
        var live = options.LivePort is { } port ? LiveServer.Start(port, feed!, LivePage.Html) : null;
        if (live is not null)
        {
            console.WriteLine(live.Announcement);
        }
        RunProgress? progress = null;
        var status = options.TerminalWidth is { } width
            ? new StatusConsole(console, () => progress is null ? "" : StatusLine.Format(progress.State, clock.GetUtcNow()), width, clock)
            : null;
        var lines = (TextWriter?)status ?? console;
        IProgressListener[] listeners = feed is null
            ? [new ConsoleLines(lines, intervals: status is null || options.Verbose)]
            : [new ConsoleLines(lines, intervals: status is null || options.Verbose), feed];
        progress = new RunProgress(plan, clock, listeners);
        return new ProgressSession(lines, progress, status, feed, live, clock);
    }

    /// <summary>A report.html was written: the live page's <c>/report</c> serves it (the latest one, when a command writes several).</summary>
    public void ReportWritten(string folder)
    {
        _reportWritten = true;
        _live?.ReportWritten(Path.Combine(folder, "report.html"));
    }

    /// <summary>
    /// The run is over: the page is told, and when it is still open and a report was written (the latest one is served)
    /// the runner waits up to 30 s for the page to load it (it shows it), so the report is on screen before the server goes.
    /// A run ends once: a later call (the command's catch-all after the run worded its own stop) is ignored.
    /// </summary>
    public void End(string outcome, string message)
    {
        if (_ended)
        {
            return;
        }
        _ended = true;
        var reportWritten = _reportWritten;
        Progress.Publish(new RunEnded(outcome, message, reportWritten && _live is not null ? "/report" : null));
        Progress.Flush();
        if (_feed is null || _live is null || _feed.Readers == 0)
        {
            return;
        }
        _feed.WaitUntilDelivered(DeliveryWait);
        if (reportWritten)
        {
            // After a Ctrl+C the wait is part of the stop's grace (CommandLine.StopGrace), which a second Ctrl+C does not shorten.
            Console.WriteLine($"live: waiting up to {ReportFetchWait.TotalSeconds:0} s for the page to load the report{(outcome == "cancelled" ? "" : " (Ctrl+C to leave now)")}");
            _live.WaitForReportFetch(ReportFetchWait);
        }
    }

    /// <summary>The run finished (not stopped): whether every threshold passed, and where its report is.</summary>
    public void Finished(bool passed, string folder) =>
        End("finished", $"The run is over: {(passed ? "every threshold passed" : "a threshold failed")}. The report is in {Path.GetFullPath(folder)}.");

    public void Dispose()
    {
        _stallWatch.Dispose();
        _status?.Dispose();
        _live?.Dispose();
    }
}
