using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Experiments.Work;

/// <summary>The work units' instruments on the <see cref="SandboxMeter"/>.</summary>
[SandboxInstruments]
internal static class WorkInstruments
{
    public static SandboxCount UnitsActive { get; } =
        SandboxMeter.UpDownCounter("sandbox.work.units.active", "{unit}", "Work units (compute, spinwait, sleep) running now.");

    public static SandboxCount UnitsCancelled { get; } =
        SandboxMeter.Counter("sandbox.work.units.cancelled", "{unit}", "Work units stopped early because their request was abandoned.");
}
