using Microsoft.Diagnostics.NETCore.Client;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// A diagnostics socket the runner listens on, for a runtime that connects out to it: the runtime is started with
/// <c>DOTNET_DiagnosticPorts=/diag/NAME.sock,nosuspend</c> (connect mode on its side) and the socket's host folder is
/// mounted at <c>/diag</c> in its container, so the observer reads a container's runtime without any published port.
/// One socket per container; disposing it stops listening and deletes the folder.
/// </summary>
public sealed class DiagnosticsSocket : IAsyncDisposable
{
    /// <summary>Where the host folder is mounted inside the container.</summary>
    public const string ContainerFolder = "/diag";

    /// <summary>The runtime's setting that makes it connect out to a diagnostics port.</summary>
    public const string PortsSetting = "DOTNET_DiagnosticPorts";

    // The folder: its owner may do anything, the container's user (another uid) may only pass through it to the socket.
    private const UnixFileMode FolderMode = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute
        | UnixFileMode.GroupExecute | UnixFileMode.OtherExecute;

    // connect() needs write permission on the socket file, and the runtime in the container runs as its own user.
    private const UnixFileMode SocketMode = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead | UnixFileMode.GroupWrite
        | UnixFileMode.OtherRead | UnixFileMode.OtherWrite;

    private readonly CancellationTokenSource _stopWaiting = new();
    // Completes with null when the wait is cancelled before a runtime connected.
    private readonly Task<DiagnosticsClientConnector> _connection;
    private int _disposed;

    private DiagnosticsSocket(string hostFolder, string name)
    {
        HostFolder = hostFolder;
        HostPath = Path.Combine(hostFolder, $"{name}.sock");
        ContainerPath = $"{ContainerFolder}/{name}.sock";
        // The runner's side listens; the runtime's side connects (",listen" here is the connector's mode, not the runtime's).
        _connection = DiagnosticsClientConnector.FromDiagnosticPort($"{HostPath},listen", _stopWaiting.Token);
    }

    /// <summary>The host folder to mount at <see cref="ContainerFolder"/>.</summary>
    public string HostFolder { get; }

    /// <summary>The socket's path on this machine.</summary>
    public string HostPath { get; }

    /// <summary>The socket's path inside the container.</summary>
    public string ContainerPath { get; }

    /// <summary>The value of <see cref="PortsSetting"/> for the container: connect to the socket, and do not wait for it at start-up.</summary>
    public string PortsValue => $"{ContainerPath},nosuspend";

    /// <summary>
    /// Creates the folder and listens on a socket in it, readable to any user (the container's runtime runs as its own uid);
    /// throws <see cref="IOException"/> (or a platform's refusal) when no such socket can be had here.
    /// </summary>
    public static DiagnosticsSocket Listen()
    {
        if (OperatingSystem.IsWindows())
        {
            throw new PlatformNotSupportedException("a diagnostics socket to mount into a container needs a Unix host");
        }
        var folder = Directory.CreateTempSubdirectory("sandbox-diag-");
        DiagnosticsSocket? socket = null;
        try
        {
            File.SetUnixFileMode(folder.FullName, FolderMode);
            var name = Guid.NewGuid().ToString("N")[..12];
            // The connector binds the socket before its first await, so the file exists once the call returns.
            socket = new DiagnosticsSocket(folder.FullName, name);
            if (socket._connection.IsFaulted)
            {
                throw new IOException($"cannot listen on {socket.HostPath}: {socket._connection.Exception!.GetBaseException().Message}");
            }
            File.SetUnixFileMode(socket.HostPath, SocketMode);
            return socket;
        }
        catch
        {
            // A cancelled wait makes the connector close its listener.
            socket?._stopWaiting.Cancel();
            folder.Delete(recursive: true);
            throw;
        }
    }

    /// <summary>The runtime's channel once it has connected, or null when it did not within <paramref name="timeout"/>.</summary>
    public async Task<DiagnosticsClient?> ConnectedAsync(TimeSpan timeout, CancellationToken cancellationToken)
    {
        try
        {
            return (await _connection.WaitAsync(timeout, cancellationToken))?.Instance;
        }
        catch (TimeoutException)
        {
            return null;
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 1)
        {
            return;
        }
        await _stopWaiting.CancelAsync();
        try
        {
            if (await _connection is { } connector)
            {
                await connector.DisposeAsync();
            }
        }
        catch (Exception e) when (e is OperationCanceledException or IOException or ObjectDisposedException)
        {
            // Never connected, or the runtime is gone: nothing is left to close.
        }
        _stopWaiting.Dispose();
        try
        {
            Directory.Delete(HostFolder, recursive: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // A folder left in the temp directory is no reason to fail a run.
        }
    }
}
