namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>The built-in load shapes a user picks with --profile.</summary>
public static class Profiles
{
    /// <summary>The profile that checks a run works (a few seconds, no verdict), never a measurement.</summary>
    public const string Smoke = "smoke";

    /// <summary>The default profile: 4 users, +4 every 6 s, one minute (run --url reaches each of its steps by a climb: CapacityOptions.ClimbingTo).</summary>
    public const string Quick = "quick";

    public static readonly IReadOnlyList<string> Names = [Quick, "seed003", "seed001", "open", Smoke];

    /// <summary>Builds a named profile; <paramref name="openRatePerSecond"/> is the open profile's peak arrival rate.</summary>
    public static LoadShape Create(string name, double openRatePerSecond) => name switch
    {
        // Seed 003: 4 users, +4 every 45 s, 8 minutes.
        "seed003" => new LoadShape(SteppedRamp(4, 4, TimeSpan.FromSeconds(45), TimeSpan.FromMinutes(8)), TimeSpan.FromSeconds(5)),
        // Seed 001: 50 clients held for 5 minutes (the streaming experiment's clients; for HTTP experiments, 50 users).
        "seed001" => new LoadShape([new KeepConstant(50, TimeSpan.FromMinutes(5))], TimeSpan.FromSeconds(5)),
        // The same shape compressed to one minute: +4 users every 6 s up to 40.
        Quick => new LoadShape(SteppedRamp(4, 4, TimeSpan.FromSeconds(6), TimeSpan.FromMinutes(1)), TimeSpan.FromSeconds(2)),
        // Open model: the arrival rate ramps up for 45 s, then holds its peak for 15 s.
        "open" => new LoadShape(
            [new RampingInject(openRatePerSecond, TimeSpan.FromSeconds(45)), new Inject(openRatePerSecond, TimeSpan.FromSeconds(15))],
            TimeSpan.FromSeconds(2)),
        // A few seconds, for tests and CI: 2, 4 then 6 users.
        Smoke => new LoadShape(SteppedRamp(2, 2, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(3)), TimeSpan.FromSeconds(1)),
        _ => throw new ArgumentException($"unknown profile '{name}' (expected one of: {string.Join(", ", Names)})", nameof(name)),
    };

    /// <summary>
    /// Closed-model staircase: <paramref name="startUsers"/>, then +<paramref name="stepUsers"/> every
    /// <paramref name="every"/> until <paramref name="total"/> has elapsed (the last step may be shorter).
    /// </summary>
    public static IReadOnlyList<LoadSimulation> SteppedRamp(int startUsers, int stepUsers, TimeSpan every, TimeSpan total)
    {
        var steps = new List<LoadSimulation>();
        var users = startUsers;
        for (var elapsed = TimeSpan.Zero; elapsed < total; elapsed += every)
        {
            var during = total - elapsed < every ? total - elapsed : every;
            steps.Add(new KeepConstant(users, during));
            users += stepUsers;
        }
        return steps;
    }
}
