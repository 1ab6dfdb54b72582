using System.Runtime.InteropServices;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>The machine the run happened on, as printed in every report.</summary>
public sealed record MachineFacts(string CpuModel, int LogicalCores, int ProcessorCount, string Runtime, string Os)
{
    public static MachineFacts Current() => new(
        ReadCpuModel(),
        CountLogicalCores(),
        Environment.ProcessorCount,
        RuntimeInformation.FrameworkDescription,
        RuntimeInformation.OSDescription);

    /// <summary>The cores the machine has (not only the ones this process may use); the runner's ProcessorCount otherwise.</summary>
    public static int CountLogicalCores()
    {
        const string cpuInfo = "/proc/cpuinfo";
        return File.Exists(cpuInfo)
            ? Math.Max(1, File.ReadLines(cpuInfo).Count(line => line.StartsWith("processor", StringComparison.Ordinal)))
            : Environment.ProcessorCount;
    }

    private static string ReadCpuModel()
    {
        const string cpuInfo = "/proc/cpuinfo";
        var line = File.Exists(cpuInfo) ? File.ReadLines(cpuInfo).FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal)) : null;
        return line is null ? "unknown (no /proc/cpuinfo)" : line[(line.IndexOf(':') + 1)..].Trim();
    }
}
