using System.Runtime;
using System.Runtime.InteropServices;

namespace ConcurrencySandbox.Contracts.Machine;

/// <summary>
/// What a report must state about where it ran: cores, CPU model, runtime and GC mode. The one reader of
/// /proc/cpuinfo: the API and the load runner both report the machine through it.
/// </summary>
/// <param name="ProcessorCount">The cores this process may use (<see cref="Environment.ProcessorCount"/>, lowered by pinning or DOTNET_PROCESSOR_COUNT).</param>
/// <param name="LogicalCores">The cores the machine has, whatever this process may use.</param>
public sealed record MachineInfo(
    int ProcessorCount,
    string CpuModel,
    string RuntimeVersion,
    string OsDescription,
    bool IsServerGC,
    int LogicalCores)
{
    private const string CpuInfo = "/proc/cpuinfo";

    public static MachineInfo Current { get; } = Read();

    private static MachineInfo Read()
    {
        var cpuInfo = File.Exists(CpuInfo) ? File.ReadAllLines(CpuInfo) : [];
        var model = cpuInfo.FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal));
        var processors = cpuInfo.Count(l => l.StartsWith("processor", StringComparison.Ordinal));
        return new MachineInfo(
            Environment.ProcessorCount,
            model is null ? RuntimeInformation.ProcessArchitecture.ToString() : model[(model.IndexOf(':') + 1)..].Trim(),
            RuntimeInformation.FrameworkDescription,
            RuntimeInformation.OSDescription,
            GCSettings.IsServerGC,
            processors > 0 ? processors : Environment.ProcessorCount);
    }
}
