using Microsoft.Diagnostics.NETCore.Client;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// How the runtime observer reaches one .NET process: a <see cref="DiagnosticsClient"/> on its diagnostics IPC channel,
/// how the report names the process and the channel, and how to tell that the process has gone (to say why a series ended).
/// </summary>
/// <param name="Process">The process as the report's table names it: "pid 1234", "container 0123456789ab".</param>
/// <param name="Description">The channel as the report names it: "the diagnostics IPC channel of pid 1234", ...</param>
/// <param name="ProcessId">The local pid, when the process is on this machine's pid namespace (checked before attaching).</param>
public sealed record DiagnosticsChannel(DiagnosticsClient Client, string Process, string Description, Func<bool> HasExited, int? ProcessId = null)
{
    /// <summary>A local process by its pid, over the socket the runtime publishes in its temp folder (what dotnet-counters uses).</summary>
    public static DiagnosticsChannel OfProcess(int processId) =>
        new(new DiagnosticsClient(processId), $"pid {processId}", $"the diagnostics IPC channel of pid {processId}", () => ProcessExited(processId), processId);

    /// <summary>Whether a local process has exited (or is a zombie its parent has not reaped yet).</summary>
    public static bool ProcessExited(int processId)
    {
        try
        {
            using var process = System.Diagnostics.Process.GetProcessById(processId);
            return process.HasExited || IsZombie(processId);
        }
        catch (ArgumentException)
        {
            return true;
        }
    }

    /// <summary>A Linux process that has exited but whose parent has not reaped it yet ("Z" in /proc/pid/stat).</summary>
    private static bool IsZombie(int processId)
    {
        try
        {
            var stat = File.ReadAllText($"/proc/{processId}/stat");
            return stat[(stat.LastIndexOf(')') + 1)..].TrimStart().StartsWith('Z');
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return !OperatingSystem.IsLinux();
        }
    }
}
