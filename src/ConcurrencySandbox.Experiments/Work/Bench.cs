namespace ConcurrencySandbox.Experiments.Work;

/// <summary>
/// What the measurement rounds time things with: one run of a unit (twice, in a mode) in seconds, the calibration loop
/// in seconds, and the clock the budget and warm-up are judged by. <see cref="Of"/> is the real one; tests script one to
/// see which amounts were measured in which order, and to spend a budget in counted pairs instead of wall-clock time.
/// </summary>
public sealed record Bench(Func<RunMode, long, CancellationToken, Task<double>> RunSeconds, Func<CancellationToken, double> CalibrationSeconds, TimeProvider Time)
{
    /// <summary>The unit run by <see cref="WorkRunner"/>, the <see cref="Calibration"/> loop and the system clock.</summary>
    public static Bench Of(WorkUnit unit) =>
        new(async (mode, amount, cancellationToken) => (await WorkRunner.RunTwiceAsync(unit, mode, amount, cancellationToken)).ElapsedSeconds, Calibration.TimeSeconds, TimeProvider.System);
}
