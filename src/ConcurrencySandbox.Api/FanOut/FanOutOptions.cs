using ConcurrencySandbox.Validation;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.FanOut;

/// <summary>The dedicated pool's size and the caps on one fan-out request. Section "FanOut" (env: FanOut__DedicatedThreads, ...).</summary>
public sealed class FanOutOptions
{
    public const string SectionName = "FanOut";

    public static readonly IntegerParameter DedicatedThreadsSetting = new("dedicatedThreads", 1, 10_000, 64, "Threads in the dedicated pool.");

    /// <summary>Threads in the app's own pool used by the <c>dedicated</c> strategy (seed 003's custom pool).</summary>
    public int DedicatedThreads { get; set; } = (int)DedicatedThreadsSetting.Default!.Value;

    public int MaxCalls { get; set; } = 1000;

    public int MaxDelayMs { get; set; } = 60_000;

    public int MaxJitterMs { get; set; } = 60_000;

    public int MaxTimeoutMs { get; set; } = 120_000;

    /// <summary>Bounds one request's total stub time: calls x (delayMs + jitterMs).</summary>
    public long MaxTotalDelayMs { get; set; } = 1_000_000;
}

/// <summary>Where the third party lives. Section "ThirdParty" (env: ThirdParty__BaseUrl, ThirdParty__TimeoutMs).</summary>
public sealed class ThirdPartyOptions
{
    public const string SectionName = "ThirdParty";

    /// <summary>The stub app's address (for example http://127.0.0.1:5090); absent means the in-process stub.</summary>
    public string? BaseUrl { get; set; }

    /// <summary>Each call's timeout when a request gives no <c>timeoutMs</c>.</summary>
    public int TimeoutMs { get; set; } = DefaultTimeoutMs;

    /// <summary>The default of <see cref="TimeoutMs"/>; its cap, FanOut:MaxTimeoutMs, is a setting of its own.</summary>
    public const int DefaultTimeoutMs = 30_000;
}

internal sealed class FanOutOptionsValidator() : DeclaredSettingsValidator<FanOutOptions>(FanOutOptions.SectionName)
{
    protected override void Check(FanOutOptions options, SettingsReader reader)
    {
        reader.Read(FanOutOptions.DedicatedThreadsSetting, options.DedicatedThreads);
        reader.ReadPositive(
            (nameof(options.MaxCalls), options.MaxCalls),
            (nameof(options.MaxDelayMs), options.MaxDelayMs),
            (nameof(options.MaxJitterMs), options.MaxJitterMs),
            (nameof(options.MaxTimeoutMs), options.MaxTimeoutMs),
            (nameof(options.MaxTotalDelayMs), options.MaxTotalDelayMs));
    }
}

internal sealed class ThirdPartyOptionsValidator(IOptions<FanOutOptions> fanOut) : DeclaredSettingsValidator<ThirdPartyOptions>(ThirdPartyOptions.SectionName)
{
    protected override void Check(ThirdPartyOptions options, SettingsReader reader)
    {
        var isHttpUrl = Uri.TryCreate(options.BaseUrl, UriKind.Absolute, out var url) && (url.Scheme == Uri.UriSchemeHttp || url.Scheme == Uri.UriSchemeHttps);
        if (!string.IsNullOrEmpty(options.BaseUrl) && !isHttpUrl)
        {
            reader.Fail(nameof(options.BaseUrl), $"{SettingName.Of(ThirdPartyOptions.SectionName, nameof(options.BaseUrl))} must be an absolute http(s) URL such as http://127.0.0.1:5090; it is '{options.BaseUrl}'.");
        }

        // The upper bound is FanOut:MaxTimeoutMs, so it is declared here, where that setting is known.
        reader.Read(new IntegerParameter("timeoutMs", 1, fanOut.Value.MaxTimeoutMs, ThirdPartyOptions.DefaultTimeoutMs, "Each call's timeout (up to FanOut:MaxTimeoutMs)."), options.TimeoutMs);
    }
}
