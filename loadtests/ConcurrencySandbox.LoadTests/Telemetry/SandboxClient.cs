using System.Net.Http.Json;
using System.Text.Json;

namespace ConcurrencySandbox.LoadTests.Telemetry;

/// <summary>A small typed client for the sandbox API's control and telemetry endpoints (not used for load).</summary>
public sealed class SandboxClient(Uri baseAddress) : IDisposable
{
    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);
    private static readonly TimeSpan HealthTimeout = TimeSpan.FromSeconds(5);
    private readonly HttpClient _http = new() { BaseAddress = baseAddress, Timeout = Timeout.InfiniteTimeSpan };

    public async Task<bool> IsHealthyAsync(CancellationToken cancellationToken)
    {
        using var cts = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        cts.CancelAfter(HealthTimeout);
        try
        {
            using var response = await _http.GetAsync("/healthz", cts.Token);
            return response.IsSuccessStatusCode;
        }
        catch (Exception e) when (e is HttpRequestException or TaskCanceledException && !cancellationToken.IsCancellationRequested)
        {
            return false;
        }
    }

    /// <summary>One telemetry snapshot, or null when the endpoint does not answer within <paramref name="timeout"/>.</summary>
    public async Task<TelemetrySnapshot?> GetTelemetryAsync(TimeSpan timeout, CancellationToken cancellationToken)
    {
        using var cts = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        cts.CancelAfter(timeout);
        try
        {
            return await _http.GetFromJsonAsync<TelemetrySnapshot>("/api/telemetry", Json, cts.Token);
        }
        catch (Exception e) when (e is HttpRequestException or JsonException or TaskCanceledException && !cancellationToken.IsCancellationRequested)
        {
            return null;
        }
    }

    /// <summary>Reads a JSON document from <paramref name="pathAndQuery"/>; throws when the API refuses.</summary>
    public async Task<JsonDocument> GetJsonAsync(string pathAndQuery, TimeSpan timeout, CancellationToken cancellationToken)
    {
        using var cts = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        cts.CancelAfter(timeout);
        using var response = await _http.GetAsync(pathAndQuery, cts.Token);
        var body = await response.Content.ReadAsStringAsync(cts.Token);
        if (!response.IsSuccessStatusCode)
        {
            throw new HttpRequestException($"GET {pathAndQuery} answered {(int)response.StatusCode}: {body}");
        }
        return JsonDocument.Parse(body);
    }

    public void Dispose() => _http.Dispose();
}
