namespace ConcurrencySandbox.LoadTests.ApiContract;

/// <summary>The API's <c>GET /api/fanout</c> answer, as far as the runner reads it: the per-call queue wait the server measured.</summary>
public sealed record FanOutResponse(TimeSummary QueueWaitMs);

/// <summary>The largest and the mean of a set of times, in the unit the property's name says.</summary>
public sealed record TimeSummary(double Max, double Mean);
