namespace ConcurrencySandbox.Contracts.Control;

/// <summary>The liveness answer (<see cref="ControlRoutes.Health"/>): the process serves requests. The API and the stub both give it.</summary>
public sealed record HealthStatus(string Status)
{
    public static HealthStatus Ok { get; } = new("ok");
}
