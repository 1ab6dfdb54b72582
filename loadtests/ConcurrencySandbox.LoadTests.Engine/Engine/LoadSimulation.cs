namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// One step of a load shape, named after NBomber's load simulations so a later swap is mechanical.
/// Closed steps set a number of concurrent users (copies); open steps set an arrival rate per second.
/// A ramping step moves linearly from the previous step's end value to its own value.
/// </summary>
public abstract record LoadSimulation(double Target, TimeSpan During, bool IsOpen, bool IsRamping);

/// <summary>Closed model: <paramref name="Copies"/> users each looping request -> response for <paramref name="During"/>.</summary>
public sealed record KeepConstant(int Copies, TimeSpan During) : LoadSimulation(Copies, During, IsOpen: false, IsRamping: false);

/// <summary>Closed model: users ramp linearly from the previous step's count to <paramref name="Copies"/>.</summary>
internal sealed record RampingConstant(int Copies, TimeSpan During) : LoadSimulation(Copies, During, IsOpen: false, IsRamping: true);

/// <summary>Open model: requests arrive at <paramref name="RatePerSecond"/>, whatever the responses do.</summary>
public sealed record Inject(double RatePerSecond, TimeSpan During) : LoadSimulation(RatePerSecond, During, IsOpen: true, IsRamping: false);

/// <summary>Open model: the arrival rate ramps linearly from the previous step's rate to <paramref name="RatePerSecond"/>.</summary>
internal sealed record RampingInject(double RatePerSecond, TimeSpan During) : LoadSimulation(RatePerSecond, During, IsOpen: true, IsRamping: true);
