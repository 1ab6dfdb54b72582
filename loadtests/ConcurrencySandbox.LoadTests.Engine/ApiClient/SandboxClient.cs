using System.Net.Http.Json;
using System.Text.Json;
using ConcurrencySandbox.Contracts;
using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Contracts.Telemetry;

namespace ConcurrencySandbox.LoadTests.ApiClient;

/// <summary>A small typed client for the sandbox API's control and telemetry endpoints (not used for load).</summary>
public sealed class SandboxClient(Uri baseAddress) : IDisposable
{
    /// <summary>How the API writes JSON: camelCase names, enums as camelCase strings (the contract's own settings).</summary>
    public static readonly JsonSerializerOptions Json = ContractJson.Options;
    private static readonly TimeSpan HealthTimeout = TimeSpan.FromSeconds(5);
    private readonly HttpClient _http = new() { BaseAddress = baseAddress, Timeout = Timeout.InfiniteTimeSpan };

    public async Task<bool> IsHealthyAsync(CancellationToken cancellationToken)
    {
        using var cts = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        cts.CancelAfter(HealthTimeout);
        try
        {
            using var response = await _http.GetAsync(ControlRoutes.Health, cts.Token);
            return response.IsSuccessStatusCode;
        }
        catch (Exception e) when (e is HttpRequestException or TaskCanceledException && !cancellationToken.IsCancellationRequested)
        {
            return false;
        }
    }

    /// <summary>One telemetry snapshot, or null when the endpoint does not answer within <paramref name="timeout"/>.</summary>
    public Task<RuntimeSnapshot?> GetTelemetryAsync(TimeSpan timeout, CancellationToken cancellationToken) =>
        GetOrNullAsync<RuntimeSnapshot?>(ControlRoutes.Telemetry, timeout, cancellationToken);

    /// <summary>
    /// The samples the API recorded every second on its own thread (complete even while its pool starved), or null
    /// when it does not answer within <paramref name="timeout"/> or has no history endpoint.
    /// </summary>
    public async Task<IReadOnlyList<RuntimeSnapshot>?> GetTelemetryHistoryAsync(TimeSpan timeout, CancellationToken cancellationToken) =>
        (await GetOrNullAsync<TelemetryHistory>(ControlRoutes.TelemetryHistory, timeout, cancellationToken))?.Samples;

    private async Task<T?> GetOrNullAsync<T>(string path, TimeSpan timeout, CancellationToken cancellationToken)
    {
        using var cts = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        cts.CancelAfter(timeout);
        try
        {
            return await _http.GetFromJsonAsync<T>(path, Json, cts.Token);
        }
        catch (Exception e) when (e is HttpRequestException or JsonException or TaskCanceledException && !cancellationToken.IsCancellationRequested)
        {
            return default;
        }
    }

    /// <summary>Reads <paramref name="pathAndQuery"/>'s JSON answer as <typeparamref name="T"/>; throws when the API refuses or answers something else.</summary>
    public async Task<T> GetAsync<T>(string pathAndQuery, TimeSpan timeout, CancellationToken cancellationToken)
    {
        using var cts = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        cts.CancelAfter(timeout);
        using var response = await _http.GetAsync(pathAndQuery, cts.Token);
        var body = await response.Content.ReadAsStringAsync(cts.Token);
        if (!response.IsSuccessStatusCode)
        {
            throw new HttpRequestException($"GET {pathAndQuery} answered {(int)response.StatusCode}: {body}");
        }
        return JsonSerializer.Deserialize<T>(body, Json) ?? throw new JsonException($"GET {pathAndQuery} answered null");
    }

    public void Dispose() => _http.Dispose();
}
