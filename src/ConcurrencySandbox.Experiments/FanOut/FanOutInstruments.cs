using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Experiments.FanOut;

/// <summary>The fan-out's instruments on the <see cref="SandboxMeter"/>.</summary>
[SandboxInstruments]
internal static class FanOutInstruments
{
    public static SandboxCount CallsActive { get; } =
        SandboxMeter.UpDownCounter("sandbox.fanout.calls.active", "{call}", "Fan-out calls to the third party in progress now.");
}
