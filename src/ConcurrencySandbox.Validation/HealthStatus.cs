namespace ConcurrencySandbox.Validation;

// Here rather than in the API because the stub answers /healthz with it too, and the stub must not reference the API.

/// <summary>The liveness answer: the process serves requests.</summary>
public sealed record HealthStatus(string Status)
{
    public static HealthStatus Ok { get; } = new("ok");
}
