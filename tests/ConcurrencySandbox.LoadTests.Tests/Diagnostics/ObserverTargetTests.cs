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
        // perl (not .NET) listens on a free loopback port and prints it.
        using var listener = await StartedProcess.StartAsync("perl", "-MIO::Socket::INET", "-e", "$| = 1; my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 1) or die $!; print $s->sockport, \"\\n\"; sleep 30;");
        var port = int.Parse(await listener.ReadLineAsync(), CultureInfo.InvariantCulture);
        using var channel = new LeftoverChannel(listener.Id);

        var (processId, problem) = ObserverTarget.FindByPort(port);

        Assert.Null(processId);
        Assert.Contains($"the process listening on port {port} (pid {listener.Id}) cannot be observed: process {listener.Id} is not a .NET process", problem);
    }

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

        public LeftoverChannel(int processId) =>
            _socket.Bind(new UnixDomainSocketEndPoint(Path.Combine(Path.GetTempPath(), $"dotnet-diagnostic-{processId}-1-socket")));

        public void Dispose() => _socket.Dispose();
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
