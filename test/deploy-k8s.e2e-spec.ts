// deploy/k8s held to the service: what the ConfigMap and the pods set is read and accepted by the
// service, and probes, ports, stop times, memory and the objects' references agree.
import { describe, expect, it } from '@jest/globals';
import { basename, dirname, join } from 'node:path';
import { validateEnvironment } from '../src/config/environment';
import { CHANGES_WAIT_MAX_MS } from '../src/markets/changes-feed/changes-query.dto';
import { dockerfile, finalShutdownMs, read, unknownVariables } from './support/deploy-files';
import { type Container, containerVariables, type K8sObject, manifests, named, portNumber, preStopSeconds, type Probe, selects, workloads } from './support/k8s-manifests';

const files = manifests();
const objects = files.map(({ object }) => object);
const pods = workloads(objects);
const deployments = pods.filter(({ object }) => object.kind === 'Deployment');
const api = named(objects, 'Deployment', 'settlement-oracle-api');
const workers = named(objects, 'Deployment', 'settlement-oracle-webhook-workers');
const containerOf = (object: K8sObject): Container => object.spec!.template!.spec.containers[0];
const labelsOf = (object: K8sObject) => object.spec!.template!.metadata.labels;
const variables = (object: K8sObject) => containerVariables(containerOf(object), objects);
const SECRET = ['DATABASE_URL', 'DATABASE_DIRECT_URL', 'DATABASE_READ_URL', 'REDIS_URL', 'ADMIN_MASTER_KEY'];

describe('deploy/k8s', () => {
  it('sets only variables the service reads, in the ConfigMap and in every pod', () => {
    for (const configMap of objects.filter(({ kind }) => kind === 'ConfigMap')) expect(unknownVariables(Object.keys(configMap.data ?? {}))).toEqual([]);
    for (const { name, container } of pods) {
      expect({ workload: name, unknown: unknownVariables(containerVariables(container, objects).names) }).toEqual({ workload: name, unknown: [] });
    }
  });

  it('sets values the service accepts', () => {
    for (const { container } of pods) expect(() => validateEnvironment(containerVariables(container, objects).values)).not.toThrow();
  });

  it('takes the URLs and ADMIN_MASTER_KEY from a Secret made out of git', () => {
    expect(objects.filter(({ kind }) => kind === 'Secret')).toEqual([]);
    for (const { name, container } of pods) {
      const { names, fromSecrets } = containerVariables(container, objects);
      expect({ workload: name, literal: names.filter((variable) => SECRET.includes(variable) && !fromSecrets.has(variable)) }).toEqual({ workload: name, literal: [] });
    }
    expect([...variables(api).fromSecrets].sort()).toEqual([...SECRET].sort());
  });

  it('runs three API instances without webhook deliveries, and the workers apart with some', () => {
    expect(api.spec?.replicas).toBe(3);
    expect(variables(api).values.WEBHOOK_WORKERS).toBe('0');
    expect(Number(variables(workers).values.WEBHOOK_WORKERS)).toBeGreaterThan(0);
  });

  it('probes /health/live and /health/ready on PORT, and offers METRICS_PORT to the scraper', () => {
    for (const { name, pod, container } of deployments) {
      const { PORT, METRICS_PORT } = containerVariables(container, objects).values;
      const probe = (candidate?: Probe) => candidate?.httpGet && { path: candidate.httpGet.path, port: portNumber(container, candidate.httpGet.port) };
      const live = { path: '/health/live', port: Number(PORT) };
      expect({ workload: name, startup: probe(container.startupProbe), liveness: probe(container.livenessProbe), readiness: probe(container.readinessProbe) }).toEqual({
        workload: name,
        startup: live,
        liveness: live,
        readiness: { path: '/health/ready', port: Number(PORT) },
      });
      expect(portNumber(container, 'metrics')).toBe(Number(METRICS_PORT));
      expect(pod.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': METRICS_PORT, 'prometheus.io/path': '/metrics' });
    }
  });

  it('gives every pod longer to stop than its preStop + SHUTDOWN_DELAY_MS + SHUTDOWN_GRACE_MS + its last wait', () => {
    for (const { name, pod, container } of deployments) {
      const { SHUTDOWN_DELAY_MS, SHUTDOWN_GRACE_MS } = containerVariables(container, objects).values;
      const sleep = preStopSeconds(container);
      expect({ workload: name, preStopUnderstood: !Number.isNaN(sleep) }).toEqual({ workload: name, preStopUnderstood: true });
      const neededMs = sleep * 1000 + Number(SHUTDOWN_DELAY_MS) + Number(SHUTDOWN_GRACE_MS) + finalShutdownMs();
      const stopMs = (pod.spec.terminationGracePeriodSeconds ?? 30) * 1000;
      expect({ workload: name, stopMs, neededMs, enough: stopMs > neededMs }).toMatchObject({ enough: true });
    }
  });

  it('gives each pod the memory docs/operations.md gives an instance, above the heap cap', () => {
    // The docs' MB are MiB: the fault suite counts RSS in kB / 1024 against the same figure.
    const documented = Number(/give an instance (\d+) MB/.exec(read('docs/operations.md'))?.[1]) * 2 ** 20;
    const heap = Number(/--max-old-space-size=(\d+)/.exec(dockerfile().cmd.join(' '))?.[1]) * 2 ** 20;
    expect(heap).toBeLessThan(documented);
    for (const { name, container } of pods) {
      const { requests, limits } = container.resources ?? {};
      expect({ workload: name, request: requests?.memory, limit: limits?.memory }).toEqual({ workload: name, request: `${documented / 2 ** 20}Mi`, limit: `${documented / 2 ** 20}Mi` });
    }
  });

  it('serves, scrapes, disrupts and scales the API pods, and serves no API from the workers', () => {
    const apiPort = Number(variables(api).values.PORT);
    const service = named(objects, 'Service', 'settlement-oracle');
    expect(selects(service.spec!.selector!, labelsOf(api))).toBe(true);
    expect(service.spec!.ports!.map(({ targetPort }) => portNumber(containerOf(api), targetPort))).toEqual([apiPort]);
    for (const apiService of objects.filter(({ kind, spec }) => kind === 'Service' && spec!.ports!.some(({ targetPort }) => portNumber(containerOf(api), targetPort) === apiPort))) {
      expect(selects(apiService.spec!.selector!, labelsOf(workers))).toBe(false);
    }
    const metrics = named(objects, 'Service', 'settlement-oracle-metrics');
    for (const deployment of [api, workers]) {
      expect(selects(metrics.spec!.selector!, labelsOf(deployment))).toBe(true);
      expect(metrics.spec!.ports!.map(({ targetPort }) => portNumber(containerOf(deployment), targetPort))).toEqual([Number(variables(deployment).values.METRICS_PORT)]);
    }
    expect(selects(named(objects, 'PodDisruptionBudget', 'settlement-oracle-api').spec!.selector!.matchLabels!, labelsOf(api))).toBe(true);
    const hpa = named(objects, 'HorizontalPodAutoscaler', 'settlement-oracle-api').spec!;
    expect({ target: hpa.scaleTargetRef, min: hpa.minReplicas }).toMatchObject({ target: { kind: 'Deployment', name: api.metadata.name }, min: api.spec!.replicas });
  });

  it('runs every pod as a non-root user on a read-only root filesystem', () => {
    for (const { name, pod, container } of pods) {
      const { runAsNonRoot, runAsUser } = pod.spec.securityContext ?? {};
      const { readOnlyRootFilesystem, allowPrivilegeEscalation } = container.securityContext ?? {};
      expect({ workload: name, runAsNonRoot, root: runAsUser === 0, readOnlyRootFilesystem, allowPrivilegeEscalation }).toEqual({
        workload: name,
        runAsNonRoot: true,
        root: false,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
    }
  });

  it("migrates with the image's migrate.js on the primary's session URL", () => {
    const job = named(objects, 'Job', 'settlement-oracle-migrate');
    expect(containerOf(job).command).toEqual(['node', 'dist/migrate.js', 'run']);
    expect([...variables(job).fromSecrets]).toEqual(['DATABASE_DIRECT_URL']);
  });

  it('renders every manifest through a kustomization: the root one lists each file beside it, migrate/ the Job', () => {
    const kustomization = (folder: string) => files.find(({ file }) => file === join(folder, 'kustomization.yaml'))!.object;
    const beside = (folder: string) => [...new Set(files.map(({ file }) => file))].filter((file) => dirname(file) === folder && basename(file) !== 'kustomization.yaml');
    for (const folder of ['.', 'migrate']) {
      expect({ folder, resources: kustomization(folder).resources!.map((resource) => join(folder, resource)).sort() }).toEqual({ folder, resources: beside(folder).sort() });
      // Both take the image from one place.
      expect({ folder, components: kustomization(folder).components!.map((component) => join(folder, component)) }).toEqual({ folder, components: ['image'] });
    }
    expect(named(objects, 'Job', 'settlement-oracle-migrate').metadata.name).toBe('settlement-oracle-migrate');
  });

  it("names the image in kustomize's images only: every container runs `settlement-oracle`, which image/ maps to a registry and tag", () => {
    const components = objects.filter(({ kind }) => kind === 'Component');
    expect(components.map(({ images }) => images)).toEqual([[{ name: 'settlement-oracle', newName: expect.stringMatching(/\//), newTag: expect.any(String) }]]);
    for (const { name, container } of pods) expect({ workload: name, image: container.image }).toEqual({ workload: name, image: 'settlement-oracle' });
    const images = files.flatMap(({ file }) => [...read(`deploy/k8s/${file}`).matchAll(/^\s*(?:image|newName|newTag):.*$/gm)].map(([line]) => `${file}: ${line.trim()}`));
    expect(images.filter((line) => !line.startsWith('image/kustomization.yaml:') && line.split(': ').pop() !== 'settlement-oracle')).toEqual([]);
  });

  it('gives the heap cap the image runs with wherever a manifest states it', () => {
    const heap = /--max-old-space-size=(\d+)/.exec(dockerfile().cmd.join(' '))![1];
    const stated = files.flatMap(({ file }) => [...read(`deploy/k8s/${file}`).matchAll(/heap is capped at (\d+) MB/g)].map((match) => ({ file, mb: match[1] })));
    expect(stated.length).toBeGreaterThan(0);
    expect(stated).toEqual(stated.map(({ file }) => ({ file, mb: heap })));
  });

  it("routes clients through one Ingress to the API's Service: one proxy in front, as TRUST_PROXY says", () => {
    const ingresses = objects.filter(({ kind }) => kind === 'Ingress');
    expect(ingresses).toHaveLength(1);
    const [ingress] = ingresses;
    const service = named(objects, 'Service', 'settlement-oracle');
    const backends = ingress.spec!.rules!.flatMap((rule) => rule.http.paths.map(({ path, pathType, backend }) => ({ path, pathType, backend })));
    expect(backends).toEqual([{ path: '/', pathType: 'Prefix', backend: { service: { name: service.metadata.name, port: { name: 'http' } } } }]);
    expect(service.spec!.ports!.map(({ name }) => name)).toContain('http');
    // The ingress controller is the one proxy between the client and a pod.
    expect(variables(api).values.TRUST_PROXY).toBe(String(ingresses.length));
    // A long poll is held up to CHANGES_WAIT_MAX_MS: the controller waits longer for its answer.
    expect(Number(ingress.metadata.annotations!['nginx.ingress.kubernetes.io/proxy-read-timeout']) * 1000).toBeGreaterThan(CHANGES_WAIT_MAX_MS);
  });
});
