using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Api.Work;

/// <summary>Caps on what one request may ask for, so no request can exhaust the server. Section "Limits" (env: Limits__MaxCycles, ...).</summary>
public sealed class ExperimentLimits
{
    public const string SectionName = "Limits";

    public long MaxCycles { get; set; } = 10_000_000_000;

    public long MaxSpinIterations { get; set; } = 1_000_000_000;

    public long MaxSleepMilliseconds { get; set; } = 60_000;

    public int MaxRepeat { get; set; } = 50;

    /// <summary>A sweep's total work: the sum of its amounts times repeat.</summary>
    public long MaxSweepCycles { get; set; } = 20_000_000_000;

    public long MaxSweepSpinIterations { get; set; } = 2_000_000_000;

    public long MaxSweepMilliseconds { get; set; } = 300_000;

    /// <summary>Seed 002: messages one receive run may ask for.</summary>
    public int MaxReceiveMessages { get; set; } = 1_000_000;

    public int MaxReceiveMessageBytes { get; set; } = 1_048_576;

    public int MaxReceiveTimeoutMs { get; set; } = 60_000;

    /// <summary>A receive compare's total: messages x 4 variants x repeat.</summary>
    public long MaxReceiveTotalMessages { get; set; } = 20_000_000;

    /// <summary>How long the sender may spend sleeping between messages in one request: messages x intervalMs (x 4 variants x repeat for compare).</summary>
    public long MaxReceivePacedMilliseconds { get; set; } = 300_000;
}

internal sealed class ExperimentLimitsValidator() : DeclaredSettingsValidator<ExperimentLimits>(ExperimentLimits.SectionName)
{
    protected override void Check(ExperimentLimits options, SettingsReader reader) =>
        reader.ReadPositive(
            (nameof(options.MaxCycles), options.MaxCycles),
            (nameof(options.MaxSpinIterations), options.MaxSpinIterations),
            (nameof(options.MaxSleepMilliseconds), options.MaxSleepMilliseconds),
            (nameof(options.MaxRepeat), options.MaxRepeat),
            (nameof(options.MaxSweepCycles), options.MaxSweepCycles),
            (nameof(options.MaxSweepSpinIterations), options.MaxSweepSpinIterations),
            (nameof(options.MaxSweepMilliseconds), options.MaxSweepMilliseconds),
            (nameof(options.MaxReceiveMessages), options.MaxReceiveMessages),
            (nameof(options.MaxReceiveMessageBytes), options.MaxReceiveMessageBytes),
            (nameof(options.MaxReceiveTimeoutMs), options.MaxReceiveTimeoutMs),
            (nameof(options.MaxReceiveTotalMessages), options.MaxReceiveTotalMessages),
            (nameof(options.MaxReceivePacedMilliseconds), options.MaxReceivePacedMilliseconds));
}
