namespace ConcurrencySandbox.Experiments.FanOut;

/// <summary>How the stubbed third party behaves for a call: how long it takes, and how often it fails or hangs.</summary>
public sealed record StubBehaviour
{
    public StubBehaviour(int delayMs, int jitterMs = 0, double failRate = 0, double hangRate = 0)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(delayMs);
        ArgumentOutOfRangeException.ThrowIfNegative(jitterMs);
        ThrowIfNotRate(failRate);
        ThrowIfNotRate(hangRate);
        DelayMs = delayMs;
        JitterMs = jitterMs;
        FailRate = failRate;
        HangRate = hangRate;
    }

    /// <summary>The least time an answer takes.</summary>
    public int DelayMs { get; }

    /// <summary>Up to this much is added to <see cref="DelayMs"/> at random.</summary>
    public int JitterMs { get; }

    /// <summary>The share of calls (0..1) answered with an error.</summary>
    public double FailRate { get; }

    /// <summary>The share of calls (0..1) never answered within the caller's timeout.</summary>
    public double HangRate { get; }

    private static void ThrowIfNotRate(double rate, [System.Runtime.CompilerServices.CallerArgumentExpression(nameof(rate))] string? name = null)
    {
        if (!(rate is >= 0 and <= 1))
        {
            throw new ArgumentOutOfRangeException(name, rate, "A rate lies between 0 and 1.");
        }
    }
}

/// <summary>The fate of one call, drawn before it starts.</summary>
public readonly record struct StubDraw(int DelayMs, bool Fails, bool Hangs);

/// <summary>Draws each call's fate from a <see cref="StubBehaviour"/>; give it a seed for repeatable tests.</summary>
public sealed class StubDice(int? seed = null)
{
    private readonly Random _random = seed is { } value ? new Random(value) : new Random();
    private readonly Lock _gate = new();

    public StubDraw Roll(StubBehaviour behaviour)
    {
        lock (_gate)
        {
            var hangs = _random.NextDouble() < behaviour.HangRate;
            var fails = !hangs && _random.NextDouble() < behaviour.FailRate;
            var jitterMs = behaviour.JitterMs > 0 ? _random.Next(behaviour.JitterMs + 1) : 0;
            return new StubDraw(behaviour.DelayMs + jitterMs, fails, hangs);
        }
    }
}
