using ConcurrencySandbox.Contracts.Contention;
using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Api.Contention;

/// <summary>The contention experiment's cap on one request, from the "Limits" section (env: Limits__MaxContentionHoldMs).</summary>
public sealed class ContentionLimits
{
    public const string SectionName = "Limits";

    public static readonly IntegerParameter MaxContentionHoldMsSetting = new(
        "maxContentionHoldMs", ContentionVariants.MinHoldMs, ContentionVariants.MaxHoldMs, ContentionVariants.MaxHoldMs, "The longest hold one contention request may ask for.");

    /// <summary>The longest hold a request may ask for; at most the experiment's own bound, so a queue of waiters always drains.</summary>
    public int MaxContentionHoldMs { get; set; } = (int)MaxContentionHoldMsSetting.Default!.Value;
}

internal sealed class ContentionLimitsValidator() : DeclaredSettingsValidator<ContentionLimits>(ContentionLimits.SectionName)
{
    protected override void Check(ContentionLimits options, SettingsReader reader) => reader.Read(ContentionLimits.MaxContentionHoldMsSetting, options.MaxContentionHoldMs);
}
