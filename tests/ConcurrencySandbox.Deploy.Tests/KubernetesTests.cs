using System.Globalization;
using ConcurrencySandbox.Api.Control;
using ConcurrencySandbox.Deploy.Tests.Support;
using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.Deploy.Tests;

public class KubernetesTests
{
    public static TheoryData<int> CpuCounts => new() { 1, 2, 4 };

    private readonly object? _api = Manifests.Load("base/deployment.yaml");
    private readonly object? _apiService = Manifests.Load("base/service.yaml");
    private readonly object? _stub = Manifests.Load("stub/deployment.yaml");
    private readonly object? _stubService = Manifests.Load("stub/service.yaml");
    private readonly object? _job = Manifests.Load("loadrunner/job.yaml");

    [Fact]
    public void EveryPathAKustomizationNamesExists()
    {
        var directories = Manifests.KustomizationDirectories().ToList();
        Assert.Contains($"{Manifests.K8s}/base", directories);
        Assert.All(directories.SelectMany(Manifests.ReferencedPaths), path => Assert.True(
            File.Exists(Repository.PathOf(path)) || File.Exists(Repository.PathOf($"{path}/kustomization.yaml")),
            $"{path} is neither a file nor a kustomization directory."));
    }

    [Fact]
    public void OverlaysExistForOneTwoAndFourCpusOnly() =>
        Assert.Equal(
            new[] { "cpu-1", "cpu-2", "cpu-4" },
            Directory.GetDirectories(Repository.PathOf($"{Manifests.K8s}/overlays")).Select(Path.GetFileName).Order());

    [Theory]
    [MemberData(nameof(CpuCounts))]
    public void OverlayGivesTheApiRequestsEqualToLimitsOfItsCpuCountAndAMemoryLimit(int cpus)
    {
        var overlay = $"{Manifests.K8s}/overlays/cpu-{cpus}";
        Assert.Contains($"{Manifests.K8s}/base", Manifests.ReferencedPaths(overlay));

        var patch = Yaml.LoadFile(Assert.Single(Manifests.ReferencedPaths(overlay), path => path.EndsWith(".yaml", StringComparison.Ordinal)));
        Assert.Equal(_api.Text("kind"), patch.Text("kind"));
        Assert.Equal(_api.Text("metadata", "name"), patch.Text("metadata", "name"));
        var resources = Manifests.Container(patch, Manifests.Container(_api, "api").Text("name")!).At("resources");

        Assert.Equal($"{cpus}", resources.Text("limits", "cpu"));
        Assert.Equal($"{cpus}", resources.Text("requests", "cpu"));
        Assert.NotNull(resources.Text("limits", "memory"));
        Assert.Equal(resources.Text("limits", "memory"), resources.Text("requests", "memory"));
    }

    [Theory]
    [MemberData(nameof(CpuCounts))]
    public void OverlayPutsItsApiAndStubInANamespaceOfItsOwn(int cpus) =>
        Assert.Equal($"concurrencysandbox-cpu-{cpus}", Manifests.Kustomization($"{Manifests.K8s}/overlays/cpu-{cpus}").Text("namespace"));

    [Fact]
    public void BaseLeavesCpuLimitsToTheOverlays() =>
        Assert.Null(Manifests.Container(_api, "api").At("resources", "limits", "cpu"));

    [Fact]
    public void ApiIsProbedForReadinessAndLivenessOnHealthzAtPort8080() => AssertProbedOnHealthz(_api, "api");

    [Fact]
    public void StubIsProbedForReadinessAndLivenessOnHealthzAtPort8080() => AssertProbedOnHealthz(_stub, "stub");

    [Fact]
    public void ServicesForwardToTheirPodsPort8080()
    {
        Assert.All(new[] { (_api, _apiService, "api"), (_stub, _stubService, "stub") }, pair =>
        {
            var (deployment, service, container) = pair;
            var servicePort = HttpPort(service);
            Assert.Equal("8080", Manifests.ResolvePort(Manifests.Container(deployment, container), servicePort.Text("targetPort")));
            Assert.All(service.Entries("spec", "selector"), label =>
                Assert.Equal(label.Value, deployment.Text("spec", "template", "metadata", "labels", label.Key)));
        });
    }

    [Fact]
    public void ApiServiceForwardsAPortNamedControlToTheControlPlanesDefaultPort()
    {
        var controlPort = ControlOptions.DefaultPort.ToString(CultureInfo.InvariantCulture);
        var servicePort = Assert.Single(_apiService.List("spec", "ports"), port => port.Text("name") == "control");

        Assert.Equal(controlPort, servicePort.Text("port"));
        Assert.Equal(controlPort, Manifests.ResolvePort(Manifests.Container(_api, "api"), servicePort.Text("targetPort")));
        Assert.Contains(Manifests.Container(_api, "api").List("ports"), port => port.Text("name") == "control" && port.Text("containerPort") == controlPort);
        Assert.DoesNotContain(_stubService.List("spec", "ports"), port => port.Text("name") == "control");
    }

    [Fact]
    public void PodsRunAsNonRoot()
    {
        Assert.All(new[] { _api, _stub, _job }, workload =>
        {
            var securityContext = Manifests.PodSpec(workload).At("securityContext");
            Assert.Equal("true", securityContext.Text("runAsNonRoot"));
            Assert.NotEqual("0", securityContext.Text("runAsUser"));
        });
    }

    [Fact]
    public void ApiGetsItsEnvironmentFromTheGeneratedConfigMap()
    {
        var generator = Assert.Single(Manifests.Kustomization($"{Manifests.K8s}/base").List("configMapGenerator"));
        var envFrom = Assert.Single(Manifests.Container(_api, "api").List("envFrom"));
        Assert.Equal(generator.Text("name"), envFrom.Text("configMapRef", "name"));
        Assert.Contains("ASPNETCORE_HTTP_PORTS=8080", generator.List("literals"));
    }

    [Fact]
    public void ApiReachesTheStubServiceThroughTheThirdPartyBaseUrl()
    {
        var literals = Assert.Single(Manifests.Kustomization($"{Manifests.K8s}/base").List("configMapGenerator")).List("literals");
        var stubPort = Assert.Single(_stubService.List("spec", "ports")).Text("port");
        Assert.Contains($"ThirdParty__BaseUrl=http://{_stubService.Text("metadata", "name")}:{stubPort}", literals);
    }

    [Fact]
    public void LoadRunnerJobTargetsTheApiServiceAndWritesToAMountedVolume()
    {
        var loadRunner = Manifests.Container(_job, "loadrunner");
        var args = loadRunner.List("args").OfType<string>().ToList();
        var apiPort = HttpPort(_apiService).Text("port");

        Assert.Equal($"http://{_apiService.Text("metadata", "name")}:{apiPort}", args[args.IndexOf("--target") + 1]);
        Assert.Contains(loadRunner.List("volumeMounts"), mount => mount.Text("mountPath") == args[args.IndexOf("--out") + 1]);
    }

    [FactWhenToolExists("kubectl")]
    [Trait("Category", "Slow")]
    public void EveryOverlayRendersWithTheApiLimitedToItsCpuCount()
    {
        foreach (var cpus in new[] { 1, 2, 4 })
        {
            var objects = Manifests.RenderedObjects($"{Manifests.K8s}/overlays/cpu-{cpus}").ToList();
            var api = Assert.Single(objects, o => o.Text("kind") == "Deployment" && o.Text("metadata", "name") == "api");
            var configMap = Assert.Single(objects, o => o.Text("kind") == "ConfigMap");

            Assert.Equal($"{cpus}", Manifests.Container(api, "api").Text("resources", "limits", "cpu"));
            Assert.Equal(configMap.Text("metadata", "name"), Assert.Single(Manifests.Container(api, "api").List("envFrom")).Text("configMapRef", "name"));
            Assert.Contains(objects, o => o.Text("kind") == "Deployment" && o.Text("metadata", "name") == "stub");
            Assert.All(objects.Where(o => o.Text("kind") != "Namespace"), o => Assert.Equal($"concurrencysandbox-cpu-{cpus}", o.Text("metadata", "namespace")));
        }
    }

    [FactWhenToolExists("kubectl")]
    [Trait("Category", "Slow")]
    public void WatchKustomizationRendersTheApiWithAWatchSidecarOnTheSocketTheyShareInAnEmptyDir()
    {
        var objects = Manifests.RenderedObjects($"{Manifests.K8s}/watch").ToList();
        var api = Assert.Single(objects, o => o.Text("kind") == "Deployment" && o.Text("metadata", "name") == "api");
        var apiContainer = Manifests.Container(api, "api");
        var watch = Manifests.Container(api, "watch");
        var ports = Assert.Single(apiContainer.List("env"), e => e.Text("name") == DiagnosticsSocket.PortsSetting).Text("value")!.Split(',');
        var args = watch.List("args").Select(a => a?.ToString()).ToList();
        var socketFolder = ports[0][..ports[0].LastIndexOf('/')];
        string? VolumeAt(object? container, string folder) => Assert.Single(container.List("volumeMounts"), m => m.Text("mountPath") == folder).Text("name");

        Assert.Equal("nosuspend", ports[1]);
        Assert.Equal(new[] { "watch", "--diagnostic-port", ports[0] }, args.Take(3));
        // watch refuses a path that exists: a socket a killed watch left in the emptyDir (which outlives it) is removed first.
        Assert.StartsWith($"rm -f {ports[0]} && exec dotnet ", watch.List("command").Select(c => c?.ToString()).ElementAt(2));
        Assert.Equal(VolumeAt(apiContainer, socketFolder), VolumeAt(watch, socketFolder));
        Assert.NotNull(Assert.Single(Manifests.PodSpec(api).List("volumes"), v => v.Text("name") == VolumeAt(watch, socketFolder)).At("emptyDir"));
        // The report is written under a mounted folder (the root file system is read-only).
        var reports = args[args.IndexOf("--out") + 1]!;
        Assert.Contains(watch.List("volumeMounts"), m => reports.StartsWith(m.Text("mountPath") + "/", StringComparison.Ordinal));
        Assert.Equal("true", watch.Text("securityContext", "readOnlyRootFilesystem"));
        // Requests equal to limits in every container: the pod keeps the Guaranteed QoS the cpu-1 overlay gives the API.
        Assert.All(Manifests.PodSpec(api).List("containers"), c => Assert.All(new[] { "cpu", "memory" }, resource =>
            Assert.Equal(c.Text("resources", "limits", resource), c.Text("resources", "requests", resource))));
        Assert.Equal("1", apiContainer.Text("resources", "limits", "cpu"));
        Assert.All(objects.Where(o => o.Text("kind") != "Namespace"), o => Assert.Equal("concurrencysandbox-cpu-1", o.Text("metadata", "namespace")));
    }

    [FactWhenToolExists("kubectl")]
    [Trait("Category", "Slow")]
    public void LoadRunnerKustomizationRendersOneJobWithoutANamespace()
    {
        var job = Assert.Single(Manifests.RenderedObjects($"{Manifests.K8s}/loadrunner"));
        Assert.Equal("Job", job.Text("kind"));
        Assert.Null(job.At("metadata", "namespace"));
    }

    [FactWhenToolExists("kubectl")]
    [Trait("Category", "Slow")]
    public void AgentsKustomizationRendersAnIndexedJobOfAgentsAndACoordinatorJobBehindAService()
    {
        var objects = Manifests.RenderedObjects($"{Manifests.K8s}/agents").ToList();
        var agents = Assert.Single(objects, o => o.Text("kind") == "Job" && o.Text("metadata", "name") == "loadrunner-agents");
        var coordinator = Assert.Single(objects, o => o.Text("kind") == "Job" && o.Text("metadata", "name") == "loadrunner-coordinator");
        var service = Assert.Single(objects, o => o.Text("kind") == "Service");

        // An Indexed Job runs all its agents at once, each told its share by JOB_COMPLETION_INDEX, which the agent reads.
        Assert.Equal("Indexed", agents.Text("spec", "completionMode"));
        var count = agents.At("spec", "parallelism")?.ToString();
        Assert.Equal(count, agents.At("spec", "completions")?.ToString());
        Assert.Equal("JOB_COMPLETION_INDEX", ConcurrencySandbox.LoadTests.Cli.AgentCommand.IndexVariable);
        var agent = Manifests.Container(agents, "agent");
        var coordinatorArgs = Manifests.Container(coordinator, "coordinator").List("args").Select(a => a?.ToString()).ToList();
        Assert.Equal(count, coordinatorArgs[coordinatorArgs.IndexOf("--agents") + 1]);

        // The agents reach the coordinator through the Service, which selects its pod before it is Ready (it runs in an init container).
        var port = Assert.Single(service.List("spec", "ports"));
        Assert.Contains($"tcp://{service.Text("metadata", "name")}:{port.At("port")}", agent.List("args").Select(a => a?.ToString()));
        Assert.EndsWith($":{port.At("targetPort")}", coordinatorArgs[coordinatorArgs.IndexOf("--agent-listen") + 1]);
        Assert.Equal("true", service.At("spec", "publishNotReadyAddresses")?.ToString()?.ToLowerInvariant());
        Assert.All(service.Entries("spec", "selector"), label => Assert.Equal(label.Value, coordinator.Text("spec", "template", "metadata", "labels", label.Key)));

        // Agents spread over nodes: anti-affinity on their own label, by host.
        var term = Assert.Single(Manifests.PodSpec(agents).List("affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution")).At("podAffinityTerm");
        Assert.Equal("kubernetes.io/hostname", term.Text("topologyKey"));
        Assert.All(term.Entries("labelSelector", "matchLabels"), label => Assert.Equal(label.Value, agents.Text("spec", "template", "metadata", "labels", label.Key)));

        // The restricted security context the other workloads have.
        foreach (var job in new[] { agents, coordinator })
        {
            Assert.Equal("true", Manifests.PodSpec(job).At("securityContext", "runAsNonRoot")?.ToString()?.ToLowerInvariant());
            Assert.Equal("RuntimeDefault", Manifests.PodSpec(job).Text("securityContext", "seccompProfile", "type"));
        }
        foreach (var container in new[] { agent, Manifests.Container(coordinator, "coordinator") })
        {
            Assert.Equal("false", container.At("securityContext", "allowPrivilegeEscalation")?.ToString()?.ToLowerInvariant());
            Assert.Equal(["ALL"], container.List("securityContext", "capabilities", "drop").Select(c => c?.ToString()));
        }
    }

    /// <summary>A Service's port named http, the one experiments and probes use.</summary>
    private static object? HttpPort(object? service) =>
        Assert.Single(service.List("spec", "ports"), port => port.Text("name") == "http");

    private static void AssertProbedOnHealthz(object? deployment, string containerName)
    {
        var container = Manifests.Container(deployment, containerName);
        Assert.All(new[] { "readinessProbe", "livenessProbe" }, probe =>
        {
            Assert.Equal("/healthz", container.Text(probe, "httpGet", "path"));
            Assert.Equal("8080", Manifests.ResolvePort(container, container.Text(probe, "httpGet", "port")));
        });
    }
}
