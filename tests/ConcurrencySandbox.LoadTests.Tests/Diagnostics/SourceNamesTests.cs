using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>Compiler-generated names as traces show them (taken from real stacks and from Roslyn's output) and the developer's words for them.</summary>
public sealed class SourceNamesTests
{
    [Theory]
    // Lambdas: a static one in the closure class "<>c", one capturing locals in a display class, one capturing `this` on the type itself.
    [InlineData("Program+<>c.<<Main>$>b__0_1", "the lambda in Program (top-level statements)")]
    [InlineData("ConcurrencySandbox.Experiments.FanOut.FanOutRunner+<>c__DisplayClass4_0.<RunAsync>b__1", "the lambda in FanOutRunner.RunAsync")]
    [InlineData("App.Handlers+<>c.<Map>b__3_0", "the lambda in Handlers.Map")]
    [InlineData("ControllerLinq.OrdersController.<Get>b__1_0", "the lambda in OrdersController.Get")]
    [InlineData("Program+<>c__DisplayClass0_0.<<Main>$>b__2", "the lambda in Program (top-level statements)")]
    // Async state machines and iterators: the method the developer wrote.
    [InlineData("App.Handlers+<GetAsync>d__5.MoveNext", "Handlers.GetAsync")]
    [InlineData("ConcurrencySandbox.Experiments.FanOut.CallBatch+<RunAsync>d__9.MoveNext", "CallBatch.RunAsync")]
    [InlineData("App.Catalog+<Items>d__2.MoveNext", "Catalog.Items")]
    // An async lambda: its state machine is nested in the closure class.
    [InlineData("Program+<>c+<<<Main>$>b__0_0>d.MoveNext", "the lambda in Program (top-level statements)")]
    [InlineData("App.Orders+<>c__DisplayClass2_0+<<Get>b__0>d.MoveNext", "the lambda in Orders.Get")]
    // Local functions, in a method, in top-level statements, async.
    [InlineData("App.Orders.<Get>g__Price|2_0", "the local function Price in Orders.Get")]
    [InlineData("Program.<<Main>$>g__Handle|0_2", "the local function Handle in Program (top-level statements)")]
    [InlineData("App.Orders+<<GetAsync>g__FetchAsync|3_0>d.MoveNext", "the local function FetchAsync in Orders.GetAsync")]
    // A lambda inside a local function.
    [InlineData("App.Orders+<>c.<<Get>g__Price|2_0>b__2_1", "the lambda in the local function Price in Orders.Get")]
    // Ordinary methods, nested types, generics, constructors, top-level statements themselves.
    [InlineData("ConcurrencySandbox.SampleService.Orders.Get", "Orders.Get")]
    [InlineData("App.Outer+Inner.Run", "Inner.Run")]
    [InlineData("System.Threading.Tasks.Task`1[System.__Canon].get_Result", "Task.get_Result")]
    [InlineData("System.Collections.Generic.List`1[System.Int32].ForEach", "List.ForEach")]
    [InlineData("App.Orders..ctor", "the constructor of Orders")]
    [InlineData("App.Orders..cctor", "the static constructor of Orders")]
    [InlineData("Program.<Main>$", "Program (top-level statements)")]
    [InlineData("Main", "Main")]
    public void CompilerGeneratedNamesBecomeTheNamesTheDeveloperWrote(string frame, string expected)
    {
        Assert.Equal(expected, SourceNames.Describe(frame));
    }
}
