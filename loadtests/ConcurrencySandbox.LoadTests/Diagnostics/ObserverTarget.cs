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
        if (!DiagnosticsClient.GetPublishedProcesses().Contains(processId))
        {
            throw new UsageException($"process {processId} is not a .NET process with a diagnostics channel; give the pid of a .NET 5+ process (dotnet-counters ps lists them) and check DOTNET_EnableDiagnostics is not 0");
        }
    }

    /// <summary>The one .NET process whose name is <paramref name="name"/> (the dotnet host's, or its main assembly's); refuses none or several.</summary>
    public static int FindByName(string name)
    {
        var matches = DiagnosticsClient.GetPublishedProcesses()
            .Where(id => id != Environment.ProcessId && NamesOf(id).Contains(name, StringComparer.OrdinalIgnoreCase))
            .ToList();
        return matches.Count switch
        {
            1 => matches[0],
            0 => throw new UsageException($"no .NET process is named '{name}'; start it first, or give --pid (dotnet-counters ps lists the candidates)"),
            _ => throw new UsageException($"{matches.Count} .NET processes are named '{name}' (pids {string.Join(", ", matches)}); choose one with --pid"),
        };
    }

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
