// deploy/k8s's objects, and what a container of the service's image runs with in them.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { imageDefaults, read } from './deploy-files';

// The few fields the checks read.
export interface Probe {
  httpGet?: { path: string; port: string | number };
  exec?: { command: string[] };
}
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}
export interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number }; exec?: { command: string[] }; httpGet?: unknown } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; runAsNonRoot?: boolean; runAsUser?: number };
}
export interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: { containers: Container[]; terminationGracePeriodSeconds?: number; securityContext?: { runAsNonRoot?: boolean; runAsUser?: number } };
}
export interface IngressBackend {
  service: { name: string; port: { name?: string; number?: number } };
}
export interface K8sObject {
  kind: string;
  metadata: { name?: string; generateName?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
  /** A kustomization's (or a component's). */
  resources?: string[];
  components?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
  spec?: {
    ingressClassName?: string;
    rules?: { host?: string; http: { paths: { path: string; pathType: string; backend: IngressBackend }[] } }[];
    replicas?: number;
    template?: PodTemplate;
    selector?: Record<string, string> & { matchLabels?: Record<string, string> };
    ports?: { name?: string; port: number; targetPort: string | number }[];
    scaleTargetRef?: { kind: string; name: string };
    minReplicas?: number;
  };
}

/** Every object of every manifest under deploy/k8s (its folders too), with its file's path from there. */
export function manifests(): { file: string; object: K8sObject }[] {
  return readdirSync(join(process.cwd(), 'deploy/k8s'), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.ya?ml$/.test(file))
    .sort()
    .flatMap((file) =>
      parseAllDocuments(read(`deploy/k8s/${file}`)).map((document) => {
        if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}`);
        return { file, object: document.toJS() as K8sObject };
      }),
    );
}

export const named = (objects: K8sObject[], kind: string, name: string): K8sObject => {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in deploy/k8s`);
  return found;
};

/** The containers of every pod template (Deployments, Jobs): all of them run the service's image. */
export function workloads(objects: K8sObject[]): { name: string; object: K8sObject; pod: PodTemplate; container: Container }[] {
  return objects
    .filter((object) => object.spec?.template)
    .flatMap((object) => {
      const pod = object.spec!.template!;
      const name = object.metadata.name ?? object.metadata.generateName!;
      return pod.spec.containers.map((container) => ({ name: `${object.kind} ${name}`, object, pod, container }));
    });
}

/**
 * What a container sets: the names (its env, and every key of the ConfigMaps it takes whole),
 * the values it runs with (the image's defaults, then the ConfigMaps, then its env), and the
 * names it takes from Secrets.
 */
export function containerVariables(container: Container, objects: K8sObject[]) {
  const names: string[] = [];
  const values: Record<string, string> = imageDefaults();
  for (const source of container.envFrom ?? []) {
    if (!source.configMapRef) throw new Error(`${container.name}: envFrom other than a ConfigMap sets names no test can see`);
    const data = named(objects, 'ConfigMap', source.configMapRef.name).data ?? {};
    names.push(...Object.keys(data));
    Object.assign(values, data);
  }
  const fromSecrets = new Set<string>();
  for (const variable of container.env ?? []) {
    names.push(variable.name);
    if (variable.value !== undefined) values[variable.name] = variable.value;
    else delete values[variable.name];
    if (variable.valueFrom?.secretKeyRef) fromSecrets.add(variable.name);
  }
  return { names, values, fromSecrets };
}

/** A probe's or Service's port (a number, or a name of the container's ports) as a number. */
export function portNumber(container: Container, port: string | number): number | undefined {
  return typeof port === 'number' ? port : container.ports?.find((candidate) => candidate.name === port)?.containerPort;
}

/** Seconds a preStop hook sleeps (0 without one); NaN for a hook these checks cannot read. */
export function preStopSeconds(container: Container): number {
  const hook = container.lifecycle?.preStop;
  if (!hook) return 0;
  if (hook.sleep) return hook.sleep.seconds;
  const command = hook.exec?.command.join(' ').replace(/^\/bin\/sh -c /, '') ?? '';
  return Number(/^sleep (\d+)$/.exec(command)?.[1] ?? NaN);
}

/** Whether a selector picks a pod with these labels. */
export const selects = (selector: Record<string, string>, labels: Record<string, string>): boolean =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);
