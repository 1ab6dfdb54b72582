using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;

namespace ConcurrencySandbox.Platform.Hosting;

/// <summary>How to start a .NET child: its assembly, arguments, extra environment, optional pinning and who hears its output.</summary>
public sealed record ChildLaunch(string Assembly, IReadOnlyList<string> Arguments)
{
    public IReadOnlyDictionary<string, string> Environment { get; init; } = new Dictionary<string, string>();

    /// <summary>When set, the child runs under <c>taskset</c> on these cpus and sees as many processors.</summary>
    public CpuSet? Cpus { get; init; }

    /// <summary>Told of every stdout line as it arrives (on the reading thread), for a child that reports as it goes.</summary>
    public Action<string>? OnOutputLine { get; init; }
}

/// <summary>The child exited before it printed the line a caller was waiting for.</summary>
public sealed class ChildExitedException(int exitCode, IReadOnlyList<string> lastErrors)
    : Exception($"the child exited with code {exitCode} before it was ready: {string.Join(" | ", lastErrors)}")
{
    public int ExitCode { get; } = exitCode;

    /// <summary>The last lines the child wrote to stderr.</summary>
    public IReadOnlyList<string> LastErrors { get; } = lastErrors;
}

/// <summary>
/// A .NET assembly started as its own process (<c>dotnet &lt;assembly&gt; args...</c>) with both output streams drained into a
/// bounded list of lines, so the child never blocks on a full pipe. Callers await their ready lines through parsers; the
/// whole process tree is killed on dispose. The runner's API child and the tests' children all start through this.
/// </summary>
public sealed class ChildProcess : IAsyncDisposable
{
    /// <summary>How many output lines are kept (the oldest go first).</summary>
    public const int KeptLines = 2000;

    private const int KeptErrorLines = 5;
    private readonly Process _process;
    private readonly object _gate = new();
    private readonly Queue<string> _output = new();
    private readonly Queue<string> _errors = new();
    private readonly List<Func<string, bool>> _lineWaiters = [];
    private readonly List<Action<Exception>> _exitWaiters = [];
    private readonly Task _watch;
    private ChildExitedException? _exited;

    private ChildProcess(Process process, Action<string>? onOutputLine)
    {
        _process = process;
        process.OutputDataReceived += (_, e) =>
        {
            OnLine(e.Data, isError: false);
            if (e.Data is { } line)
            {
                onOutputLine?.Invoke(line);
            }
        };
        process.ErrorDataReceived += (_, e) => OnLine(e.Data, isError: true);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        _watch = WatchExitAsync();
    }

    public int Id => _process.Id;

    /// <summary>The last <see cref="KeptLines"/> lines the child wrote to stdout or stderr, oldest first.</summary>
    public IReadOnlyList<string> Output
    {
        get
        {
            lock (_gate)
            {
                return [.. _output];
            }
        }
    }

    /// <summary>Starts the child; throws <see cref="InvalidOperationException"/> when the host cannot be started.</summary>
    public static ChildProcess Start(ChildLaunch launch)
    {
        var start = new ProcessStartInfo
        {
            FileName = DotnetHost(),
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        if (launch.Cpus is { } cpus)
        {
            start.ArgumentList.Add("-c");
            start.ArgumentList.Add(cpus.ToString());
            start.ArgumentList.Add(start.FileName);
            start.FileName = "taskset";
            start.Environment["DOTNET_PROCESSOR_COUNT"] = cpus.Count.ToString(CultureInfo.InvariantCulture);
        }
        start.ArgumentList.Add(launch.Assembly);
        foreach (var argument in launch.Arguments)
        {
            start.ArgumentList.Add(argument);
        }
        InlineSocketCompletions.GiveChildTheStartingValue(start.Environment);
        foreach (var (name, value) in launch.Environment)
        {
            start.Environment[name] = value;
        }
        return new ChildProcess(Process.Start(start) ?? throw new InvalidOperationException($"could not start {start.FileName}"), launch.OnOutputLine);
    }

    /// <summary>
    /// The first line (already written or still to come) that <paramref name="parse"/> turns into a value. Throws
    /// <see cref="ChildExitedException"/> if the child exits first and <see cref="TimeoutException"/> after <paramref name="timeout"/>.
    /// </summary>
    public Task<T> WaitForLineAsync<T>(Func<string, T?> parse, TimeSpan timeout, CancellationToken cancellationToken = default)
        where T : class
    {
        var found = new TaskCompletionSource<T>(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (_gate)
        {
            foreach (var line in _output)
            {
                if (parse(line) is { } value)
                {
                    return Task.FromResult(value);
                }
            }
            if (_exited is { } exited)
            {
                return Task.FromException<T>(exited);
            }
            _lineWaiters.Add(line => parse(line) is { } value && found.TrySetResult(value));
            _exitWaiters.Add(e => found.TrySetException(e));
        }
        return found.Task.WaitAsync(timeout, cancellationToken);
    }

    private void OnLine(string? line, bool isError)
    {
        if (line is null)
        {
            return;
        }
        lock (_gate)
        {
            Keep(_output, line, KeptLines);
            if (isError)
            {
                Keep(_errors, line, KeptErrorLines);
            }
            _lineWaiters.RemoveAll(waiter => waiter(line));
        }
    }

    private static void Keep(Queue<string> lines, string line, int capacity)
    {
        lines.Enqueue(line);
        if (lines.Count > capacity)
        {
            lines.Dequeue();
        }
    }

    // WaitForExitAsync also waits for both redirected streams to close, so every line is in before waiters hear of the exit.
    private async Task WatchExitAsync()
    {
        await _process.WaitForExitAsync();
        var exitCode = _process.ExitCode;
        lock (_gate)
        {
            _exited = new ChildExitedException(exitCode, [.. _errors]);
            foreach (var waiter in _exitWaiters)
            {
                waiter(_exited);
            }
            _exitWaiters.Clear();
            _lineWaiters.Clear();
        }
    }

    /// <summary>Sends SIGTERM, as <c>docker stop</c> and Kubernetes do.</summary>
    public void Terminate()
    {
        using var kill = Process.Start("kill", ["-TERM", _process.Id.ToString(CultureInfo.InvariantCulture)]);
        kill.WaitForExit();
    }

    /// <summary>Waits for the child to exit (a hang guard, not a measurement); returns its exit code.</summary>
    public async Task<int> WaitForExitAsync(TimeSpan hangGuard)
    {
        using var timeout = new CancellationTokenSource(hangGuard);
        await _process.WaitForExitAsync(timeout.Token);
        return _process.ExitCode;
    }

    /// <summary>Kills the child and its whole tree at once, without waiting.</summary>
    public void Kill()
    {
        try
        {
            _process.Kill(entireProcessTree: true);
        }
        catch (InvalidOperationException)
        {
            // Already exited.
        }
    }

    public async ValueTask DisposeAsync()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill(entireProcessTree: true);
            }
            await _watch.WaitAsync(TimeSpan.FromSeconds(10));
        }
        catch (Exception e) when (e is InvalidOperationException or TimeoutException or System.ComponentModel.Win32Exception)
        {
            // Already gone, or refusing to die: nothing more a parent can do.
        }
        _process.Dispose();
    }

    /// <summary>The dotnet host this process runs on: the runtime folder is &lt;root&gt;/shared/Microsoft.NETCore.App/&lt;version&gt;/.</summary>
    private static string DotnetHost()
    {
        var name = OperatingSystem.IsWindows() ? "dotnet.exe" : "dotnet";
        var root = Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));
        var host = Path.Combine(root, name);
        return File.Exists(host) ? host : name;
    }
}
