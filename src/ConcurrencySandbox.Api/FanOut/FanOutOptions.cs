using ConcurrencySandbox.Api.Validation;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.FanOut;

/// <summary>The dedicated pool's size and the caps on one fan-out request. Section "FanOut" (env: FanOut__DedicatedThreads, ...).</summary>
public sealed class FanOutOptions
{
    public const string SectionName = "FanOut";

    /// <summary>Threads in the app's own pool used by the <c>dedicated</c> strategy (seed 003's custom pool).</summary>
    public int DedicatedThreads { get; set; } = 64;

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
    public int TimeoutMs { get; set; } = 30_000;
}

internal sealed class FanOutOptionsValidator : IValidateOptions<FanOutOptions>
{
    public ValidateOptionsResult Validate(string? name, FanOutOptions options)
    {
        (string Name, long Value)[] settings =
        [
            (nameof(options.DedicatedThreads), options.DedicatedThreads),
            (nameof(options.MaxCalls), options.MaxCalls),
            (nameof(options.MaxDelayMs), options.MaxDelayMs),
            (nameof(options.MaxJitterMs), options.MaxJitterMs),
            (nameof(options.MaxTimeoutMs), options.MaxTimeoutMs),
            (nameof(options.MaxTotalDelayMs), options.MaxTotalDelayMs),
        ];
        var failures = settings
            .Where(setting => setting.Value < 1)
            .Select(setting => $"{SettingName.Of(FanOutOptions.SectionName, setting.Name)} must be at least 1; it is {setting.Value}.")
            .ToList();
        if (options.DedicatedThreads > MaxDedicatedThreads)
        {
            failures.Add($"{SettingName.Of(FanOutOptions.SectionName, nameof(options.DedicatedThreads))} must be at most {MaxDedicatedThreads}; it is {options.DedicatedThreads}.");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private const int MaxDedicatedThreads = 10_000;
}

internal sealed class ThirdPartyOptionsValidator(IOptions<FanOutOptions> fanOut) : IValidateOptions<ThirdPartyOptions>
{
    public ValidateOptionsResult Validate(string? name, ThirdPartyOptions options)
    {
        var failures = new List<string>();
        var isHttpUrl = Uri.TryCreate(options.BaseUrl, UriKind.Absolute, out var url) && (url.Scheme == Uri.UriSchemeHttp || url.Scheme == Uri.UriSchemeHttps);
        if (!string.IsNullOrEmpty(options.BaseUrl) && !isHttpUrl)
        {
            failures.Add($"{SettingName.Of(ThirdPartyOptions.SectionName, nameof(options.BaseUrl))} must be an absolute http(s) URL such as http://127.0.0.1:5090; it is '{options.BaseUrl}'.");
        }

        var maxTimeoutMs = fanOut.Value.MaxTimeoutMs;
        if (options.TimeoutMs < 1 || options.TimeoutMs > maxTimeoutMs)
        {
            failures.Add($"{SettingName.Of(ThirdPartyOptions.SectionName, nameof(options.TimeoutMs))} must be from 1 to {maxTimeoutMs} (FanOut:MaxTimeoutMs); it is {options.TimeoutMs}.");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
