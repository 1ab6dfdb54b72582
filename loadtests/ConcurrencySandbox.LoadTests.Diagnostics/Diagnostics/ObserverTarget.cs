using System.Diagnostics;
using System.Globalization;
using Microsoft.Diagnostics.NETCore.Client;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>Finds and checks the process the observer attaches to; every refusal is a <see cref="UsageException"/> naming the cause and the fix.</summary>
public static class ObserverTarget
{
    /// <summary>Throws unless <paramref name="processId"/> is a live .NET process of this user that publishes a diagnostics channel.</summary>
    public static void Check(int processId)
    {
        if (ClosedChannelOf(processId) is { } closed)
        {
            throw new UsageException(closed);
        }
    }

    /// <summary>
    /// Why <paramref name="processId"/>, a live .NET process of this user, cannot be observed although /proc still shows its
    /// CPU: its diagnostics channel is closed (<see cref="ClosedBy"/>); null when it answers on the channel. Throws as
    /// <see cref="Check"/> does for anything else: a dead pid, another user's, a silent channel, a process that is not .NET.
    /// </summary>
    public static string? ClosedChannelOf(int processId)
    {
        CheckAlive(processId);
        var channels = DotnetProcesses(id => id == processId);
        if (channels.Silent.Count > 0)
        {
            throw new UsageException($"{Silence(processId)}, so it cannot be observed (a hung runtime, or another program's socket under its pid); give the pid of a .NET 5+ process that answers (dotnet-counters ps lists them)");
        }
        return channels.Answering.Count > 0 ? null
            : ClosedBy(processId, ReadProcFile(processId, "environ"), ReadProcFile(processId, "maps"))
            ?? throw new UsageException($"process {processId} is not a .NET process with a diagnostics channel; give the pid of a .NET 5+ process (dotnet-counters ps lists them) and check DOTNET_EnableDiagnostics is not 0");
    }

    /// <summary>The settings that close a runtime's diagnostics channel when 0: all of it, or (.NET 8+) its IPC alone.</summary>
    private static readonly string[] ClosingSettings = ["DOTNET_EnableDiagnostics", "COMPlus_EnableDiagnostics", "DOTNET_EnableDiagnostics_IPC"];

    /// <summary>
    /// Why a process with no diagnostics channel is still a .NET one, from its /proc files: a setting of
    /// <see cref="ClosingSettings"/> at 0 in its <paramref name="environ"/> (NUL-separated, as the process started), or the
    /// runtime (libcoreclr) among its <paramref name="maps"/> with its channel not where this runner looks (the same
    /// setting given otherwise, or another TMPDIR); null when neither shows (not .NET, or /proc could not be read).
    /// </summary>
    internal static string? ClosedBy(int processId, string? environ, string? maps)
    {
        var closing = (environ ?? "").Split('\0').FirstOrDefault(v => ClosingSettings.Any(setting => v == $"{setting}=0"));
        return closing is not null ? $"process {processId} is a .NET process whose diagnostics channel is closed ({closing} in its environment)"
            : maps?.Contains("/libcoreclr.so", StringComparison.Ordinal) == true
            ? $"process {processId} runs .NET but publishes no diagnostics channel this runner finds (DOTNET_EnableDiagnostics=0, or its channel under another TMPDIR)"
            : null;
    }

    /// <summary>/proc/PID/<paramref name="name"/> of a process of this user; null where it cannot be read.</summary>
    private static string? ReadProcFile(int processId, string name)
    {
        try
        {
            return File.ReadAllText($"/proc/{processId}/{name}");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>
    /// Throws unless <paramref name="processId"/> is a live process of this user; its channel is not asked (<see cref="Check"/>
    /// asks it synchronously, which a caller on the runner's socket threads must not: RuntimeObserver.AttachAsync).
    /// </summary>
    public static void CheckAlive(int processId)
    {
        if (processId <= 0)
        {
            throw new UsageException($"--pid must be a positive process id, got {processId}");
        }
        try
        {
            using var process = Process.GetProcessById(processId);
            if (process.HasExited)
            {
                throw Exited(processId);
            }
        }
        catch (ArgumentException)
        {
            throw Exited(processId);
        }
        if (OwnerOf(processId) is { } owner && OwnerOf(Environment.ProcessId) is { } self && owner != self)
        {
            throw new UsageException($"process {processId} belongs to another user (uid {owner}, this runner is uid {self}); run the runner as that user");
        }
    }

    /// <summary>
    /// How long a process has to answer on its diagnostics channel. A runtime answers in milliseconds (its diagnostics
    /// server has a thread of its own, however starved the pool); the client's synchronous ask has no timeout, so a socket
    /// that accepts and never answers (a hung runtime, another program's socket under the pid) would hold the runner forever.
    /// </summary>
    public static readonly TimeSpan AnswerTimeout = TimeSpan.FromSeconds(10);

    /// <summary>"pid 123 did not answer on its diagnostics channel within 10 s": the refusal of a channel that accepted and stayed silent.</summary>
    private static string Silence(int processId) =>
        string.Create(CultureInfo.InvariantCulture, $"pid {processId} did not answer on its diagnostics channel within {AnswerTimeout.TotalSeconds:0} s");

    /// <summary>The processes whose channel answered, and those whose channel accepted but did not answer within <see cref="AnswerTimeout"/>.</summary>
    private sealed record Channels(IReadOnlyList<int> Answering, IReadOnlyList<int> Silent);

    /// <summary>
    /// The .NET processes the observer can attach to among those <paramref name="candidate"/> accepts: a diagnostics
    /// channel's file carries the pid and the process answers on that channel within <see cref="AnswerTimeout"/> (all asked
    /// at once). The one filter of --pid (<see cref="Check"/>), --process-name (<see cref="FindByName"/>) and the port's
    /// holder (<see cref="FindByPort"/>, through Check), so a leftover channel of a dead or non-.NET process is never chosen
    /// by any of them, and a silent one is refused within the bound.
    /// </summary>
    private static Channels DotnetProcesses(Func<int, bool> candidate)
    {
        var asked = DiagnosticsClient.GetPublishedProcesses().Where(candidate).Distinct().Select(id => (Id: id, Answer: AskInTheBackground(id))).ToList();
        var deadline = Stopwatch.StartNew();
        var answering = new List<int>();
        var silent = new List<int>();
        foreach (var (id, answer) in asked)
        {
            var left = AnswerTimeout - deadline.Elapsed;
            if (!answer.Wait(left > TimeSpan.Zero ? left : TimeSpan.Zero))
            {
                silent.Add(id);
            }
            else if (answer.Result)
            {
                answering.Add(id);
            }
        }
        return new Channels(answering, silent);
    }

    /// <summary>
    /// <see cref="AnswersOnItsChannel"/> on a thread of its own: the client's read cannot be cancelled, so a silent holder
    /// keeps that one thread (not a pool thread) until it closes the socket, while the caller goes on after <see cref="AnswerTimeout"/>.
    /// </summary>
    private static Task<bool> AskInTheBackground(int processId) =>
        Task.Factory.StartNew(() => AnswersOnItsChannel(processId), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);

    /// <summary>
    /// Whether the process answers on the diagnostics channel its pid names: a channel's file alone does not say the process
    /// is .NET (a killed .NET process leaves its socket behind, and the kernel can give its pid to another process). In a
    /// clean-clone CI run (2026-11-29) a <c>sleep</c> passed the file check; a leftover socket is the suspected cause, not
    /// shown. A runtime too old for the command (UnsupportedCommand) did answer. Unbounded: <see cref="AskInTheBackground"/>.
    /// </summary>
    private static bool AnswersOnItsChannel(int processId)
    {
        try
        {
            new DiagnosticsClient(processId).GetProcessEnvironment();
            return true;
        }
        catch (UnsupportedCommandException)
        {
            return true;
        }
        catch (Exception e) when (e is ServerNotAvailableException or ServerErrorException or IOException or TimeoutException or UnauthorizedAccessException or System.Net.Sockets.SocketException)
        {
            return false;
        }
    }

    /// <summary>The one .NET process whose name is <paramref name="name"/> (the dotnet host's, or its main assembly's); refuses none or several.</summary>
    public static int FindByName(string name)
    {
        var channels = DotnetProcesses(id => id != Environment.ProcessId && NamesOf(id).Contains(name, StringComparer.OrdinalIgnoreCase));
        var matches = channels.Answering;
        var silent = channels.Silent.Count == 0 ? "" : $" ({string.Join("; ", channels.Silent.Select(Silence))})";
        return matches.Count switch
        {
            1 => matches[0],
            0 => throw new UsageException($"no .NET process is named '{name}'{silent}; start it first, or give --pid (dotnet-counters ps lists the candidates)"),
            _ => throw new UsageException($"{matches.Count} .NET processes are named '{name}' (pids {string.Join(", ", matches)}); choose one with --pid"),
        };
    }

    /// <summary>
    /// The .NET process listening on loopback <paramref name="port"/> (run --url without --pid or --process-name), or why
    /// there is none the observer can use: not Linux, nothing listening there, another user's socket, several holders, not
    /// a .NET process. Never throws: the run goes on without the observer and the report says why.
    /// </summary>
    public static (int? ProcessId, string? Problem) FindByPort(int port)
    {
        if (!OperatingSystem.IsLinux())
        {
            return (null, "finding the process behind a port reads Linux's /proc; give --pid or --process-name");
        }
        var sockets = ListeningSockets.OnPort(port);
        if (sockets.Count == 0)
        {
            return (null, $"no socket listens on loopback port {port} in /proc/net/tcp or /proc/net/tcp6 (a port of another network namespace, such as a container's?); give --pid or --process-name");
        }
        var holders = ListeningSockets.Holders(sockets.Select(s => s.Inode).ToHashSet());
        if (holders.Count == 0)
        {
            var self = OwnerOf(Environment.ProcessId);
            var others = sockets.Select(s => s.OwnerUid).Where(uid => uid != self).Distinct().ToList();
            return (null, others.Count > 0
                ? $"port {port} is held by uid {string.Join(", ", others)}, another user whose processes this runner cannot read; run the runner as that user or give --pid"
                : $"no process this runner can read holds port {port}'s socket; give --pid");
        }
        if (holders.Count > 1)
        {
            return (null, $"{holders.Count} processes hold port {port} (pids {string.Join(", ", holders)}); choose one with --pid");
        }
        try
        {
            Check(holders[0]);
            return (holders[0], null);
        }
        catch (UsageException e)
        {
            return (null, $"the process listening on port {port} (pid {holders[0]}) cannot be observed: {e.Message}");
        }
    }

    /// <summary>
    /// The one local process listening on <paramref name="port"/>, observable or not; null when none or several do, or
    /// this user cannot see which (/proc on Linux only). Its CPU can still be read from /proc when its diagnostics channel
    /// is closed (DOTNET_EnableDiagnostics=0).
    /// </summary>
    public static int? HolderOfPort(int port) =>
        OperatingSystem.IsLinux() && ListeningSockets.OnPort(port) is { Count: > 0 } sockets && ListeningSockets.Holders(sockets.Select(s => s.Inode).ToHashSet()) is [var holder] ? holder : null;

    private static UsageException Exited(int processId) =>
        new($"process {processId} does not exist or has exited; start the service first and give its current pid");

    /// <summary>The process's name and, for a <c>dotnet app.dll</c> host, the app's assembly name without extension.</summary>
    private static IReadOnlyList<string> NamesOf(int processId)
    {
        try
        {
            using var process = Process.GetProcessById(processId);
            var names = new List<string> { process.ProcessName };
            var commandLine = $"/proc/{processId}/cmdline";
            if (File.Exists(commandLine))
            {
                var arguments = File.ReadAllText(commandLine).Split('\0', StringSplitOptions.RemoveEmptyEntries);
                names.AddRange(arguments.Skip(1).Take(1).Where(a => a.EndsWith(".dll", StringComparison.OrdinalIgnoreCase)).Select(Path.GetFileNameWithoutExtension)!);
            }
            return names;
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException or IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }

    /// <summary>The real uid of a Linux process from /proc; null where /proc does not say.</summary>
    private static int? OwnerOf(int processId)
    {
        try
        {
            var status = $"/proc/{processId}/status";
            if (!File.Exists(status))
            {
                return null;
            }
            var line = File.ReadLines(status).FirstOrDefault(l => l.StartsWith("Uid:", StringComparison.Ordinal));
            var fields = line?.Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries);
            return fields is { Length: > 1 } && int.TryParse(fields[1], NumberStyles.None, CultureInfo.InvariantCulture, out var uid) ? uid : null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }
}
