using System.Runtime;
using System.Runtime.InteropServices;

namespace ConcurrencySandbox.Experiments.Machine;

/// <summary>What a report must state about where it ran: cores, CPU model, runtime and GC mode.</summary>
public sealed record MachineInfo(
    int ProcessorCount,
    string CpuModel,
    string RuntimeVersion,
    string OsDescription,
    bool IsServerGC)
{
    public static MachineInfo Current { get; } = new(
        Environment.ProcessorCount,
        ReadCpuModel(),
        RuntimeInformation.FrameworkDescription,
        RuntimeInformation.OSDescription,
        GCSettings.IsServerGC);

    private static string ReadCpuModel()
    {
        const string cpuInfo = "/proc/cpuinfo";
        if (File.Exists(cpuInfo))
        {
            var line = File.ReadLines(cpuInfo).FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal));
            if (line is not null)
            {
                return line[(line.IndexOf(':') + 1)..].Trim();
            }
        }

        return RuntimeInformation.ProcessArchitecture.ToString();
    }
}
