namespace ConcurrencySandbox.Contracts.Control;

/// <summary>The control endpoints' paths, the same on the API port and on the control port (<see cref="Metrics"/>: control port only).</summary>
public static class ControlRoutes
{
    public const string Health = "/healthz";
    public const string ThreadPool = "/api/threadpool";
    public const string ThreadPoolReset = "/api/threadpool/reset";
    public const string Telemetry = "/api/telemetry";
    public const string TelemetryHistory = "/api/telemetry/history";
    public const string Metrics = "/metrics";
}
