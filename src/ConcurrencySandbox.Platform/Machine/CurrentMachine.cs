using System.Runtime;
using System.Runtime.InteropServices;
using ConcurrencySandbox.Contracts.Machine;

namespace ConcurrencySandbox.Platform.Machine;

/// <summary>The machine this process runs on, read once. The one reader of /proc/cpuinfo: the API and the load runner both report the machine through it.</summary>
public static class CurrentMachine
{
    private const string CpuInfo = "/proc/cpuinfo";

    public static MachineInfo Info { get; } = Read();

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
