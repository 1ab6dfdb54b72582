namespace ConcurrencySandbox.Contracts.Machine;

/// <summary>
/// What a report must state about where it ran: cores, CPU model, runtime and GC mode. The API and the load runner both
/// read it through the platform library's <c>CurrentMachine</c>.
/// </summary>
/// <param name="ProcessorCount">The cores this process may use (<see cref="Environment.ProcessorCount"/>, lowered by pinning or DOTNET_PROCESSOR_COUNT).</param>
/// <param name="LogicalCores">The cores the machine has, whatever this process may use.</param>
public sealed record MachineInfo(
    int ProcessorCount,
    string CpuModel,
    string RuntimeVersion,
    string OsDescription,
    bool IsServerGC,
    int LogicalCores);
