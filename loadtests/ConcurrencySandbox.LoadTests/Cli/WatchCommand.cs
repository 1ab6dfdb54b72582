using System.CommandLine;
using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Experiments;
using Microsoft.Diagnostics.NETCore.Client;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>
/// <c>watch --pid N | --process-name NAME | --url http://127.0.0.1:PORT/</c>: attaches the runtime observer to a .NET
/// process on this machine without sending it a request, for <c>--duration-s</c> or until Ctrl+C, and writes a report of
/// each starvation episode it saw (<see cref="StarvationEpisodes"/>): when, how long, the pool at its start and peak, the
/// runtime's starvation injections, the call site the pool's threads waited in (a stack sample taken during the episode)
/// and the fix. One line per episode as it ends, one closing line naming the report.
/// </summary>
internal static class WatchCommand
{
    /// <summary>The watched process exited (or its diagnostics channel broke) before the watch's end: the report holds what was seen until then.</summary>
    public const int ExitProcessExited = 3;

    public const double MinDurationSeconds = 1;
    public const double MaxDurationSeconds = 86_400;

    // How often the episodes are worked out again from what the observer has read: a stack sample starts within this of an injection.
    private static readonly TimeSpan PollPeriod = TimeSpan.FromMilliseconds(250);

    // As the diagnosis under load samples: three short traces a little apart, each thread counted with the stack it showed most.
    private const int StackRounds = 3;

    // How long the end of the watch waits for a stack sample under way (its traces are parsed on the runner's cores).
    private static readonly TimeSpan LastSampleWait = TimeSpan.FromSeconds(30);

    // How long --diagnostic-port waits for a runtime to connect (one that is running retries every few seconds).
    private static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(60);

    // Samples of one episode that found no pool thread in user code before the episode is left unnamed.
    private const int StackAttempts = 3;

    public static Command Create(TextWriter output, TextWriter error)
    {
        var pid = new Option<int?>("--pid") { Description = "The .NET process to watch, by its process id." };
        var processName = new Option<string?>("--process-name") { Description = "The .NET process to watch by name (its executable or main assembly), when exactly one matches." };
        var url = new Option<string?>("--url") { Description = "Watch the process listening on this URL's port (loopback only: 127.0.0.0/8, ::1, localhost; found through /proc on Linux). No request is sent to it." };
        var port = new Option<string?>("--diagnostic-port") { Description = Invariant($"Listen on this Unix socket path for a runtime started with {DiagnosticsSocket.PortsSetting}=<the path as it sees it>,nosuspend (a container's, through a shared volume) and watch it once it connects (within {ConnectTimeout.TotalSeconds:0} s).") };
        var duration = new Option<double?>("--duration-s") { Description = Invariant($"How long to watch, in seconds ({MinDurationSeconds:0} to {MaxDurationSeconds:0}); default: until Ctrl+C.") };
        var outFolder = new Option<string?>("--out") { Description = "Report folder for watch.md and watch.json (default: reports/<yyyyMMdd-HHmmss>-watch/)." };
        var command = new Command("watch", Invariant($"Watch a running .NET service under its own traffic through its diagnostics channel (no request is sent) and report each thread-pool starvation episode: when, how long, the call site its threads waited in and the fix. Exit 0 when the watch ran its course (Ctrl+C included), {ExitProcessExited} when the process exited during it, {CommandLine.ExitUsage} for bad input."))
        {
            pid, processName, url, port, duration, outFolder,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            try
            {
                var seconds = new OptionValues(parse).InRangeIfGiven(duration, MinDurationSeconds, MaxDurationSeconds);
                var socketPath = parse.GetValue(port);
                var processId = socketPath is null ? ProcessOf(parse.GetValue(pid), parse.GetValue(processName), parse.GetValue(url)) : NoProcessBeside(parse.GetValue(pid), parse.GetValue(processName), parse.GetValue(url));
                var folder = parse.GetValue(outFolder) ?? Path.Combine("reports", $"{DateTime.Now:yyyyMMdd-HHmmss}-watch");
                await using var socket = socketPath is null ? null : await ListeningSocket.ConnectedAsync(socketPath, output, cancellationToken);
                await using var observer = await RuntimeObserver.AttachAsync(socket?.Channel ?? DiagnosticsChannel.OfProcess(processId!.Value), cancellationToken);
                var watched = processId is { } id ? $"pid {id} ({NameOf(id)})" : $"the runtime connected to {socketPath}";
                await output.WriteLineAsync(Invariant($"watching {watched} {(seconds is { } s ? $"for {s:0.#} s" : "until Ctrl+C")}; no request is sent to it"));
                var report = await WatchAsync(observer, seconds is { } limit ? TimeSpan.FromSeconds(limit) : null, output, cancellationToken);
                WatchReport.Write(folder, report);
                await output.WriteLineAsync(report.Closing(Path.Combine(folder, WatchReport.MarkdownFile)));
                return report.ProcessExited ? ExitProcessExited : CommandLine.ExitOk;
            }
            catch (Exception e) when (e is UsageException or FormatException)
            {
                await error.WriteLineAsync($"error: {e.Message}");
                return CommandLine.ExitUsage;
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                await error.WriteLineAsync("cancelled before the watch began: no report was written");
                return CommandLine.ExitCancelled;
            }
        });
        return command;
    }

    /// <summary>--diagnostic-port names the runtime by the socket it connects to: no process may be named beside it.</summary>
    private static int? NoProcessBeside(int? pid, string? processName, string? url) =>
        pid is null && processName is null && url is null ? null : throw new UsageException("--diagnostic-port watches the runtime that connects to it, so it cannot go with --pid, --process-name or --url");

    /// <summary>The process to watch: exactly one of --pid, --process-name or --url (the process on its loopback port), checked as the observer needs it.</summary>
    public static int ProcessOf(int? pid, string? processName, string? url)
    {
        var given = new[] { pid is not null, processName is not null, url is not null }.Count(g => g);
        if (given != 1)
        {
            throw new UsageException(given == 0
                ? "name the process to watch: --pid N, --process-name NAME, --url http://127.0.0.1:PORT/ or --diagnostic-port PATH"
                : "give one of --pid, --process-name or --url, not several");
        }
        if (url is null)
        {
            return UrlCommand.ProcessOf(pid, processName)!.Value;
        }
        var port = UrlCommand.LoopbackUrl(url).Port;
        var (processId, problem) = ObserverTarget.FindByPort(port);
        return processId ?? throw new UsageException(problem!);
    }

    /// <summary>
    /// Reads the observer until <paramref name="duration"/> has passed, the token is cancelled (Ctrl+C) or the process is
    /// gone; samples the stacks once an episode is open and prints each episode as it ends.
    /// </summary>
    private static async Task<WatchReport> WatchAsync(RuntimeObserver observer, TimeSpan? duration, TextWriter output, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        var startedUtc = DateTimeOffset.UtcNow;
        var samples = new List<StackSample>();
        (Task<BlockingSites> Task, double AtSeconds)? sampling = null;
        var printed = 0;
        var endedBecause = "";
        IReadOnlyList<StarvationEpisode> episodes = [];
        while (true)
        {
            var elapsed = Stopwatch.GetElapsedTime(started);
            endedBecause = observer.LostReason is { } lost ? $"{lost} after {elapsed.TotalSeconds:0.#} s"
                : cancellationToken.IsCancellationRequested ? Invariant($"stopped (Ctrl+C or SIGTERM) after {elapsed.TotalSeconds:0.#} s")
                : duration is { } limit && elapsed >= limit ? Invariant($"watched for the {limit.TotalSeconds:0.#} s asked")
                : "";
            var (readings, marks) = Read(observer, started);
            episodes = StarvationEpisodes.Find(readings, marks, elapsed.TotalSeconds);
            if (sampling is { Task.IsCompleted: true } done)
            {
                samples.Add(await StackSample.OfAsync(done.Task, done.AtSeconds));
                sampling = null;
            }
            if (sampling is null && endedBecause == "" && episodes.LastOrDefault(e => !e.Drained) is { } open && NeedsSample(open, samples))
            {
                sampling = (Task.Run(async () => Group(await StackSampler.SampleAsync(observer.Channel.Client, StackRounds, cancellationToken)), cancellationToken), elapsed.TotalSeconds);
            }
            // An episode is printed once it has drained and its stack sample, if one is under way, has come back.
            for (; printed < episodes.Count && episodes[printed].Drained && !(sampling is { } s && Within(episodes[printed], s.AtSeconds)); printed++)
            {
                await output.WriteLineAsync(WatchReport.Line(printed + 1, episodes[printed], Diagnose(episodes[printed], samples)));
            }
            if (endedBecause != "")
            {
                break;
            }
            try
            {
                await Task.Delay(PollPeriod, cancellationToken);
            }
            catch (OperationCanceledException)
            {
                // Ctrl+C ends the watch; the next pass writes down what was seen.
            }
        }
        var watchedSeconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
        if (sampling is { } last)
        {
            // The last episode's sample, begun before the end: its call site is worth the wait (a Ctrl+C cancels it between rounds).
            samples.Add(await StackSample.OfAsync(last.Task.WaitAsync(LastSampleWait, CancellationToken.None), last.AtSeconds));
        }
        var (allReadings, allMarks) = Read(observer, started, watchedSeconds);
        episodes = StarvationEpisodes.Find(allReadings, allMarks, watchedSeconds);
        var diagnoses = episodes.Select(e => Diagnose(e, samples)).ToList();
        for (; printed < episodes.Count; printed++)
        {
            await output.WriteLineAsync(WatchReport.Line(printed + 1, episodes[printed], diagnoses[printed]));
        }
        return WatchReport.Of(observer.Channel, startedUtc, watchedSeconds, endedBecause, observer.LostReason is not null, allReadings, allMarks, episodes, diagnoses, observer.EventsLost);
    }

    /// <summary>Whether the open episode still wants a stack sample: none taken in it yet found a pool thread in user code, and it has attempts left.</summary>
    private static bool NeedsSample(StarvationEpisode open, IReadOnlyList<StackSample> samples)
    {
        var inIt = samples.Where(s => s.AtSeconds >= open.StartSeconds).ToList();
        return inIt.Count < StackAttempts && !inIt.Any(s => s.Sites?.AnyInUserCode == true);
    }

    private static bool Within(StarvationEpisode episode, double seconds) => seconds >= episode.StartSeconds && seconds <= episode.EndSeconds;

    /// <summary>The episode's diagnosis from the first sample taken in it that found a pool thread in user code, else its last.</summary>
    private static EpisodeDiagnosis Diagnose(StarvationEpisode episode, IReadOnlyList<StackSample> samples)
    {
        var inIt = samples.Where(s => Within(episode, s.AtSeconds)).ToList();
        var chosen = inIt.FirstOrDefault(s => s.Sites?.AnyInUserCode == true) ?? inIt.LastOrDefault();
        return EpisodeDiagnosis.Of(episode, chosen?.Sites, chosen?.Failed ?? (episode.DurationSeconds < 1
            ? "the episode was over before a stack sample could be taken"
            : "no stack sample was taken during the episode"));
    }

    private static BlockingSites Group(IReadOnlyList<ThreadStack> stacks)
    {
        using var resolver = new CallSiteResolver();
        return BlockingSites.Group(stacks, resolver);
    }

    /// <summary>The observer's pool readings and adjustments so far, on the watch's time axis.</summary>
    private static (IReadOnlyList<PoolReading> Readings, IReadOnlyList<AdjustmentMark> Marks) Read(RuntimeObserver observer, long started, double untilSeconds = double.MaxValue)
    {
        var readings = observer.Samples
            .Where(s => s.Timestamp >= started && s[RuntimeObserver.ThreadCount] is not null)
            .Select(s => new PoolReading(Stopwatch.GetElapsedTime(started, s.Timestamp).TotalSeconds, (int)s[RuntimeObserver.ThreadCount]!.Value, (long)(s[RuntimeObserver.QueueLength] ?? 0)))
            .Where(r => r.ElapsedSeconds <= untilSeconds)
            .ToList();
        var marks = observer.Adjustments
            .Where(a => a.Timestamp >= started)
            .Select(a => new AdjustmentMark(Stopwatch.GetElapsedTime(started, a.Timestamp).TotalSeconds, a.NewWorkerThreadCount, a.Reason))
            .Where(a => a.ElapsedSeconds <= untilSeconds)
            .ToList();
        return (readings, marks);
    }

    private static string NameOf(int processId)
    {
        try
        {
            using var process = Process.GetProcessById(processId);
            return process.ProcessName;
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException)
        {
            return "exited";
        }
    }

    /// <summary>
    /// --diagnostic-port: a socket at a path the user chose (in a folder a container mounts), listened on as the
    /// container observer's <see cref="DiagnosticsSocket"/> does, and the runtime that connected to it.
    /// </summary>
    private sealed class ListeningSocket(DiagnosticsClientConnector connector, string path, CancellationTokenSource stop) : IAsyncDisposable
    {
        // connect() needs write permission on the socket file, and a container's runtime runs as its own user.
        private const UnixFileMode SocketMode = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead | UnixFileMode.GroupWrite
            | UnixFileMode.OtherRead | UnixFileMode.OtherWrite;

        public DiagnosticsChannel Channel { get; } = new(connector.Instance, $"the runtime on {path}", $"the diagnostics socket {path}", () => false);

        public static async Task<ListeningSocket> ConnectedAsync(string path, TextWriter output, CancellationToken cancellationToken)
        {
            if (OperatingSystem.IsWindows())
            {
                throw new UsageException("--diagnostic-port listens on a Unix socket; on Windows give --pid");
            }
            if (File.Exists(path))
            {
                throw new UsageException($"--diagnostic-port: {path} exists (a socket left by an earlier watch?); remove it or choose another path");
            }
            if (Path.GetDirectoryName(Path.GetFullPath(path)) is { } folder && !Directory.Exists(folder))
            {
                throw new UsageException($"--diagnostic-port: the folder {folder} does not exist");
            }
            // Cancelled, it makes the connector close its listener; kept until the watch ends otherwise.
            var stop = new CancellationTokenSource();
            try
            {
                // The connector binds the socket before its first await, so the file exists once the call returns.
                var connection = DiagnosticsClientConnector.FromDiagnosticPort($"{path},listen", stop.Token);
                if (connection.IsFaulted)
                {
                    await connection;
                }
                File.SetUnixFileMode(path, SocketMode);
                await output.WriteLineAsync(Invariant($"listening on {path}: start the service with {DiagnosticsSocket.PortsSetting}={path},nosuspend (the path as the service sees it)"));
                return new ListeningSocket(await connection.WaitAsync(ConnectTimeout, cancellationToken), path, stop);
            }
            catch (Exception e)
            {
                await stop.CancelAsync();
                stop.Dispose();
                File.Delete(path);
                throw e switch
                {
                    TimeoutException => new UsageException(Invariant($"no runtime connected to {path} within {ConnectTimeout.TotalSeconds:0} s; start the service with {DiagnosticsSocket.PortsSetting}={path},nosuspend")),
                    IOException or UnauthorizedAccessException or System.Net.Sockets.SocketException => new UsageException($"--diagnostic-port: cannot listen on {path} ({e.Message})"),
                    _ => e,
                };
            }
        }

        public async ValueTask DisposeAsync()
        {
            await stop.CancelAsync();
            await connector.DisposeAsync();
            stop.Dispose();
            File.Delete(path);
        }
    }

    /// <summary>One stack sample of the watch: when it started, and the pool's threads grouped by call site or why it failed.</summary>
    private sealed record StackSample(double AtSeconds, BlockingSites? Sites, string? Failed)
    {
        public static async Task<StackSample> OfAsync(Task<BlockingSites> sampling, double atSeconds)
        {
            try
            {
                return new StackSample(atSeconds, await sampling, null);
            }
            catch (Exception e)
            {
                // A failed sample costs the episode its call site, never the watch.
                return new StackSample(atSeconds, null, $"the stack sample failed: {e.GetType().Name}: {e.Message}");
            }
        }
    }
}
