using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// The socket a container's runtime connects out to (DOTNET_DiagnosticPorts): who may reach it, and a real runtime
/// (the sample service, told to connect to it) observed through it with no docker involved.
/// </summary>
[System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
public sealed class DiagnosticsSocketTests
{
    [FactOnLinux]
    public async Task TheContainersUserMayConnectToTheSocketButNotListItsFolder()
    {
        var socket = DiagnosticsSocket.Listen();
        await using (socket)
        {
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute | UnixFileMode.GroupExecute | UnixFileMode.OtherExecute,
                File.GetUnixFileMode(socket.HostFolder));
            Assert.True(File.GetUnixFileMode(socket.HostPath).HasFlag(UnixFileMode.OtherWrite), "connect() needs write permission for the container's uid");
            Assert.Equal($"{DiagnosticsSocket.ContainerFolder}/{Path.GetFileName(socket.HostPath)}", socket.ContainerPath);
            Assert.Equal($"{socket.ContainerPath},nosuspend", socket.PortsValue);
        }

        Assert.False(Directory.Exists(socket.HostFolder), "disposing the socket deletes its folder");
    }

    [FactOnLinux]
    public async Task NoRuntimeConnectingMeansNoChannelAfterTheWait()
    {
        await using var socket = DiagnosticsSocket.Listen();

        Assert.Null(await socket.ConnectedAsync(TimeSpan.FromMilliseconds(200), CancellationToken.None));
    }

    [FactOnLinux]
    [Trait("Category", "Slow")]
    public async Task ARuntimeToldToConnectOutIsObservedThroughTheSocketCountersAndStacks()
    {
        await using var socket = DiagnosticsSocket.Listen();
        await using var service = await SampleServiceProcess.StartAsync(new Dictionary<string, string> { [DiagnosticsSocket.PortsSetting] = $"{socket.HostPath},nosuspend" });

        var client = await socket.ConnectedAsync(TimeSpan.FromSeconds(30), CancellationToken.None);

        Assert.NotNull(client);
        await using var observer = await RuntimeObserver.AttachAsync(new DiagnosticsChannel(client, "the sample service", "the test's socket", () => false), CancellationToken.None);
        await Eventually.TrueAsync(() => observer.Samples.Count >= 2, "two seconds of counters through the socket");
        Assert.NotNull(observer.Samples[^1][RuntimeObserver.ThreadCount]);
        // A second session on the same runtime: it connects again after each command it answered.
        Assert.NotEmpty(await StackSampler.SampleAsync(client, rounds: 1, CancellationToken.None));
    }
}
