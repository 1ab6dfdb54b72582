using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Experiments.Contention;

/// <summary>The contention experiment's instruments on the <see cref="SandboxMeter"/>.</summary>
[SandboxInstruments]
internal static class ContentionInstruments
{
    public static SandboxCount Entries { get; } =
        SandboxMeter.Counter("sandbox.contention.entries", "{entry}", "Times a request entered a contention variant's critical section.");
}
