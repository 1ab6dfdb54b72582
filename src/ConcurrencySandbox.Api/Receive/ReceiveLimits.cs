using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Api.Receive;

/// <summary>Seed 002's caps on one receive request, from the "Limits" section (env: Limits__MaxReceiveMessages, ...).</summary>
public sealed class ReceiveLimits
{
    public const string SectionName = "Limits";

    /// <summary>Messages one receive run may ask for.</summary>
    public int MaxReceiveMessages { get; set; } = 1_000_000;

    public int MaxReceiveMessageBytes { get; set; } = 1_048_576;

    public int MaxReceiveTimeoutMs { get; set; } = 60_000;

    /// <summary>A receive compare's total: messages x 4 variants x repeat.</summary>
    public long MaxReceiveTotalMessages { get; set; } = 20_000_000;

    /// <summary>How long the sender may spend sleeping between messages in one request: messages x intervalMs (x 4 variants x repeat for compare).</summary>
    public long MaxReceivePacedMilliseconds { get; set; } = 300_000;

    /// <summary>Repeats of one receive compare (the work compares have their own, Limits:MaxRepeat).</summary>
    public int MaxReceiveRepeat { get; set; } = 50;
}

internal sealed class ReceiveLimitsValidator() : DeclaredSettingsValidator<ReceiveLimits>(ReceiveLimits.SectionName)
{
    protected override void Check(ReceiveLimits options, SettingsReader reader) =>
        reader.ReadPositive(
            (nameof(options.MaxReceiveMessages), options.MaxReceiveMessages),
            (nameof(options.MaxReceiveMessageBytes), options.MaxReceiveMessageBytes),
            (nameof(options.MaxReceiveTimeoutMs), options.MaxReceiveTimeoutMs),
            (nameof(options.MaxReceiveTotalMessages), options.MaxReceiveTotalMessages),
            (nameof(options.MaxReceivePacedMilliseconds), options.MaxReceivePacedMilliseconds),
            (nameof(options.MaxReceiveRepeat), options.MaxReceiveRepeat));
}
