using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.Experiments.FanOut;

namespace ConcurrencySandbox.Tests.FanOut;

/// <summary>The fan-out's 502 answer: the problem's detail and the report of the calls that all failed.</summary>
public sealed record FanOutProblem(string Detail, FanOutReport Report);
