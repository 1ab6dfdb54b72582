using System.Diagnostics;
using System.Globalization;
using System.Net.Sockets;
using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// --pid (<see cref="ObserverTarget.Check"/>), --process-name (<see cref="ObserverTarget.FindByName"/>) and the port's holder
/// (<see cref="ObserverTarget.FindByPort"/>) share one filter: a process whose pid a diagnostics channel's file carries is
/// .NET only if it answers on that channel. Each test gives a process that is not .NET the leftover channel a killed .NET
/// process would leave under its pid (a socket file nothing listens on, in the temp folder the client reads), as happens
/// once the kernel hands that pid to another process.
/// </summary>
[System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
public sealed class ObserverTargetTests
{
    [FactOnLinux]
    public async Task APidWithALeftoverChannelThatDoesNotAnswerIsRefused()
    {
        using var sleep = await StartedProcess.StartAsync("sleep", "30");
        using var channel = new LeftoverChannel(sleep.Id);

        var refused = Assert.Throws<UsageException>(() => ObserverTarget.Check(sleep.Id));

        Assert.Contains($"process {sleep.Id} is not a .NET process with a diagnostics channel", refused.Message);
    }

    [FactOnLinux]
    public async Task AProcessOfTheNameGivenWithALeftoverChannelIsNotChosen()
    {
        using var sleep = await StartedProcess.StartAsync("sleep", "30");
        using var channel = new LeftoverChannel(sleep.Id);

        var refused = Assert.Throws<UsageException>(() => ObserverTarget.FindByName("sleep"));

        Assert.StartsWith("no .NET process is named 'sleep'", refused.Message);
    }

    [FactWhenPerlIsInstalled]
    public async Task APortHeldByAProcessWithALeftoverChannelIsNotObserved()
    {
        var (listener, port) = await NotDotnetListenerAsync();
        using var killedAtTheEnd = listener;
        using var channel = new LeftoverChannel(listener.Id);

        var (processId, problem) = ObserverTarget.FindByPort(port);

        Assert.Null(processId);
        Assert.Contains($"the process listening on port {port} (pid {listener.Id}) cannot be observed: process {listener.Id} is not a .NET process", problem);
    }

    // A channel that accepts and never answers (a hung runtime, another program's socket under the pid): the client's
    // synchronous ask waited forever before ObserverTarget.AnswerTimeout; each entry point now refuses it within the bound.
    // The guard fails the test instead of hanging it on a build without the bound.
    private static readonly TimeSpan Guard = ObserverTarget.AnswerTimeout * 3;

    [FactOnLinux]
    public async Task APidWhoseChannelAcceptsAndNeverAnswersIsRefusedWithinTheBound()
    {
        using var sleep = await StartedProcess.StartAsync("sleep", "60");
        using var channel = new SilentChannel(sleep.Id);

        var refused = await Assert.ThrowsAsync<UsageException>(() => Task.Run(() => ObserverTarget.Check(sleep.Id)).WaitAsync(Guard));

        Assert.StartsWith(Silence(sleep.Id), refused.Message);
        Assert.True(channel.Accepted > 0, "the client never connected to the silent channel");
    }

    [FactOnLinux]
    public async Task AProcessOfTheNameGivenWhoseChannelNeverAnswersIsNotChosenAndTheRefusalSaysWhy()
    {
        using var sleep = await StartedProcess.StartAsync("sleep", "60");
        using var channel = new SilentChannel(sleep.Id);

        var refused = await Assert.ThrowsAsync<UsageException>(() => Task.Run(() => ObserverTarget.FindByName("sleep")).WaitAsync(Guard));

        Assert.StartsWith("no .NET process is named 'sleep'", refused.Message);
        Assert.Contains(Silence(sleep.Id), refused.Message);
    }

    [FactWhenPerlIsInstalled]
    public async Task APortHeldByAProcessWhoseChannelNeverAnswersIsNotObservedWithinTheBound()
    {
        var (listener, port) = await NotDotnetListenerAsync();
        using var killedAtTheEnd = listener;
        using var channel = new SilentChannel(listener.Id);

        var (processId, problem) = await Task.Run(() => ObserverTarget.FindByPort(port)).WaitAsync(Guard);

        Assert.Null(processId);
        Assert.Contains($"the process listening on port {port} (pid {listener.Id}) cannot be observed: {Silence(listener.Id)}", problem);
    }

    /// <summary>perl (not .NET) listening on a free loopback port, and that port.</summary>
    private static async Task<(StartedProcess Listener, int Port)> NotDotnetListenerAsync()
    {
        var listener = await StartedProcess.StartAsync("perl", "-MIO::Socket::INET", "-e", "$| = 1; my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 1) or die $!; print $s->sockport, \"\\n\"; sleep 60;");
        return (listener, int.Parse(await listener.ReadLineAsync(), CultureInfo.InvariantCulture));
    }

    /// <summary>Where the diagnostics client looks for the channel of <paramref name="processId"/>: a socket file in the temp folder, named as the runtime names its own.</summary>
    private static string ChannelPath(int processId) => Path.Combine(Path.GetTempPath(), $"dotnet-diagnostic-{processId}-1-socket");

    private static string Silence(int processId) => $"pid {processId} did not answer on its diagnostics channel within {ObserverTarget.AnswerTimeout.TotalSeconds:0} s";

    /// <summary>A process this test started, running <c>command</c> once waited for, killed on dispose.</summary>
    private sealed class StartedProcess : IDisposable
    {
        private readonly Process _process;

        private StartedProcess(Process process) => _process = process;

        public int Id => _process.Id;

        public static async Task<StartedProcess> StartAsync(string command, params string[] arguments)
        {
            var started = new StartedProcess(Process.Start(new ProcessStartInfo(command, arguments) { RedirectStandardOutput = true })!);
            await Eventually.TrueAsync(() => File.ReadAllText($"/proc/{started.Id}/comm").Trim() == command, $"pid {started.Id} to run {command}");
            return started;
        }

        public async Task<string> ReadLineAsync() =>
            await _process.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(30)) ?? throw new InvalidOperationException($"pid {Id} closed its output");

        public void Dispose()
        {
            _process.Kill();
            _process.WaitForExit();
            _process.Dispose();
        }
    }

    /// <summary>
    /// A diagnostics channel's socket file for <c>processId</c>, bound but never listened on, as a killed runtime leaves its
    /// own; disposing the socket deletes the file.
    /// </summary>
    private sealed class LeftoverChannel : IDisposable
    {
        private readonly Socket _socket = new(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);

        public LeftoverChannel(int processId) => _socket.Bind(new UnixDomainSocketEndPoint(ChannelPath(processId)));

        public void Dispose() => _socket.Dispose();
    }

    /// <summary>
    /// A diagnostics channel's socket file for <c>processId</c>, named as the runtime names its own, that accepts every
    /// connection and never answers; disposing it closes the accepted connections (a client still reading gets the end of
    /// its stream) and deletes the file.
    /// </summary>
    private sealed class SilentChannel : IDisposable
    {
        private readonly Socket _socket = new(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        private readonly List<Socket> _accepted = [];
        private readonly string _path;

        public SilentChannel(int processId)
        {
            _path = ChannelPath(processId);
            _socket.Bind(new UnixDomainSocketEndPoint(_path));
            _socket.Listen();
            _ = AcceptAsync();
        }

        public int Accepted
        {
            get
            {
                lock (_accepted)
                {
                    return _accepted.Count;
                }
            }
        }

        private async Task AcceptAsync()
        {
            try
            {
                while (true)
                {
                    var connection = await _socket.AcceptAsync();
                    lock (_accepted)
                    {
                        _accepted.Add(connection);
                    }
                }
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
                // Disposed: no more connections.
            }
        }

        public void Dispose()
        {
            _socket.Dispose();
            lock (_accepted)
            {
                _accepted.ForEach(c => c.Dispose());
            }
            File.Delete(_path);
        }
    }
}

/// <summary>A fact that needs perl (a listener that is not .NET); skipped with the reason where it is missing.</summary>
internal sealed class FactWhenPerlIsInstalledAttribute : FactAttribute
{
    public FactWhenPerlIsInstalledAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "reads /proc, which only Linux has";
        }
        else if (!File.Exists("/usr/bin/perl"))
        {
            Skip = "perl is not installed at /usr/bin/perl (the listener that is not .NET)";
        }
    }
}
