using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Experiments.Receive;

/// <summary>The receive experiment's instruments on the <see cref="SandboxMeter"/>.</summary>
[SandboxInstruments]
internal static class ReceiveInstruments
{
    public static SandboxCount RunsActive { get; } =
        SandboxMeter.UpDownCounter("sandbox.receive.runs.active", "{run}", "Receive experiment runs in progress now.");

    public static SandboxCount RunsCancelled { get; } =
        SandboxMeter.Counter("sandbox.receive.runs.cancelled", "{run}", "Receive experiment runs stopped, or not started, because their caller cancelled.");
}
