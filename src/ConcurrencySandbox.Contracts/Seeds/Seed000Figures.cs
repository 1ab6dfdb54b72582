namespace ConcurrencySandbox.Contracts.Seeds;

/// <summary>Seed 000's cold start (shared/seeds): the first request's latency with 4 and with 40 bindings.</summary>
public static class Seed000Figures
{
    public const double FirstRequest4BindingsSeconds = 1.8;

    public const double FirstRequest40BindingsSeconds = 37.7;
}
