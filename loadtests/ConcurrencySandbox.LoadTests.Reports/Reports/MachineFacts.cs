using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Machine;
using ConcurrencySandbox.Platform.Machine;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>The machine the run happened on, as every report prints it (read once, by the experiments library's <see cref="MachineInfo"/>).</summary>
public sealed record MachineFacts(string CpuModel, int LogicalCores, int ProcessorCount, string Runtime, string Os)
{
    public static MachineFacts Current()
    {
        var machine = CurrentMachine.Info;
        return new(machine.CpuModel, machine.LogicalCores, machine.ProcessorCount, machine.RuntimeVersion, machine.OsDescription);
    }

    public SummaryMachine ToSummary() => new(CpuModel, LogicalCores, ProcessorCount, Runtime, Os);
}
