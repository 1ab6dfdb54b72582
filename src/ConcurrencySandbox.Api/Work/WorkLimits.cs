using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Api.Work;

/// <summary>
/// Caps on what one compute, spinwait or sleep request may ask for, so no request can exhaust the server. Section
/// "Limits" (env: Limits__MaxCycles, ...), which every experiment's own limits class binds from.
/// </summary>
public sealed class WorkLimits
{
    public const string SectionName = "Limits";

    public long MaxCycles { get; set; } = 10_000_000_000;

    public long MaxSpinIterations { get; set; } = 1_000_000_000;

    public long MaxSleepMilliseconds { get; set; } = 60_000;

    /// <summary>Repeats of one compare or sweep row (the receive compare has its own, Limits:MaxReceiveRepeat).</summary>
    public int MaxRepeat { get; set; } = 50;

    /// <summary>A sweep's total work: the sum of its amounts times repeat.</summary>
    public long MaxSweepCycles { get; set; } = 20_000_000_000;

    public long MaxSweepSpinIterations { get; set; } = 2_000_000_000;

    public long MaxSweepMilliseconds { get; set; } = 300_000;
}

internal sealed class WorkLimitsValidator() : DeclaredSettingsValidator<WorkLimits>(WorkLimits.SectionName)
{
    protected override void Check(WorkLimits options, SettingsReader reader) =>
        reader.ReadPositive(
            (nameof(options.MaxCycles), options.MaxCycles),
            (nameof(options.MaxSpinIterations), options.MaxSpinIterations),
            (nameof(options.MaxSleepMilliseconds), options.MaxSleepMilliseconds),
            (nameof(options.MaxRepeat), options.MaxRepeat),
            (nameof(options.MaxSweepCycles), options.MaxSweepCycles),
            (nameof(options.MaxSweepSpinIterations), options.MaxSweepSpinIterations),
            (nameof(options.MaxSweepMilliseconds), options.MaxSweepMilliseconds));
}
