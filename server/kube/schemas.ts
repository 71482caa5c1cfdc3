import { z } from "zod";

/**
 * Lenient shapes of the objects Fleetskew reads: only the fields it uses are checked, everything
 * else passes through untouched (clusters of newer versions add fields all the time).
 */
const Metadata = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().optional(),
  creationTimestamp: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  ownerReferences: z.array(z.looseObject({ kind: z.string(), name: z.string() })).optional(),
});

const Condition = z.looseObject({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional().nullable(),
  message: z.string().optional().nullable(),
  lastTransitionTime: z.string().optional().nullable(),
});

const object = <S extends z.ZodRawShape>(shape: S) =>
  z.looseObject({ apiVersion: z.string().optional(), kind: z.string().optional(), metadata: Metadata, ...shape });

export const ClusterVersionSchema = object({
  spec: z
    .looseObject({
      channel: z.string().optional(),
      clusterID: z.string().optional(),
      desiredUpdate: z.looseObject({ version: z.string().optional(), image: z.string().optional() }).optional().nullable(),
    })
    .optional(),
  status: z
    .looseObject({
      desired: z.looseObject({ version: z.string().optional(), image: z.string().optional() }).optional(),
      history: z
        .array(
          z.looseObject({
            state: z.string(),
            // The MCO reads an entry without a version as "" (its install version falls back past it).
            version: z.string().optional(),
            startedTime: z.string().optional(),
            completionTime: z.string().nullable().optional(),
            image: z.string().optional(),
          }),
        )
        .default([]),
      conditions: z.array(Condition).default([]),
      availableUpdates: z
        .array(z.looseObject({ version: z.string() }))
        .nullable()
        .optional(),
      conditionalUpdates: z.array(z.looseObject({ release: z.looseObject({ version: z.string() }) })).optional(),
    })
    .optional(),
});

export const ClusterOperatorSchema = object({ status: z.looseObject({ conditions: z.array(Condition).default([]) }).optional() });

export const InfrastructureSchema = object({
  status: z
    .looseObject({
      infrastructureName: z.string().optional(),
      platform: z.string().optional(),
      platformStatus: z
        .looseObject({
          type: z.string().optional(),
          // AzureStackCloud (Azure Stack Hub) has no boot image management (docs/openshift.md §14).
          azure: z.looseObject({ cloudName: z.string().optional() }).optional(),
        })
        .optional(),
      controlPlaneTopology: z.string().optional(),
    })
    .optional(),
});

export const MachineConfigurationSchema = object({
  spec: z.looseObject({}).optional(),
  status: z.looseObject({ conditions: z.array(Condition).default([]) }).optional(),
});

export const MachineSetSchema = object({
  spec: z.looseObject({
    replicas: z.number().optional(),
    template: z
      .looseObject({
        spec: z.looseObject({ providerSpec: z.looseObject({ value: z.looseObject({}).optional().nullable() }).optional() }).optional(),
      })
      .optional(),
  }),
  status: z.looseObject({}).optional(),
});

export const ConfigMapSchema = object({ data: z.record(z.string(), z.string()).optional() });

export const MachineConfigPoolSchema = object({
  spec: z.looseObject({}).optional(),
  status: z.looseObject({ conditions: z.array(Condition).default([]) }).optional(),
});
/**
 * One release bundle as InternalReleaseImage and MachineConfigNode status list it (openshift/api
 * machineconfiguration/v1 `InternalReleaseImageBundleStatus`, `MachineConfigNodeStatusInternalReleaseImageRef`).
 * An entry or condition of another shape reads as null and is dropped when normalized: one odd
 * entry must not hide the rest, nor make the whole object unreadable.
 */
const tolerantList = <T extends z.ZodType>(item: T) => z.array(item.nullable().catch(null)).optional().catch(undefined);

/**
 * FeatureGate `cluster` (openshift/api config/v1 types_feature.go): spec.featureSet ("" is Default),
 * status.featureGates[] one entry per release version with the gates enabled and disabled by name.
 */
const FeatureGateNames = tolerantList(z.looseObject({ name: z.string() }));
export const FeatureGateSchema = object({
  spec: z.looseObject({ featureSet: z.string().optional().nullable() }).optional().catch(undefined),
  status: z
    .looseObject({
      featureGates: tolerantList(z.looseObject({ version: z.string().optional(), enabled: FeatureGateNames, disabled: FeatureGateNames })),
    })
    .optional()
    .catch(undefined),
});
export type FeatureGate = z.infer<typeof FeatureGateSchema>;
/**
 * OSImageStream `cluster` (openshift/api machineconfiguration/v1 types_osimagestream.go; v1alpha1 in
 * 4.22 TechPreview): spec.defaultStream, status.availableStreams[] {name, osImage, osExtensionsImage}
 * and status.defaultStream. An odd entry reads as null and is dropped when normalized.
 */
export const OSImageStreamSchema = object({
  spec: z
    .looseObject({ defaultStream: z.string().optional().nullable().catch(null) })
    .optional()
    .nullable()
    .catch(undefined),
  status: z
    .looseObject({
      availableStreams: tolerantList(z.looseObject({ name: z.string(), osImage: z.string().optional().nullable().catch(null) })),
      defaultStream: z.string().optional().nullable().catch(null),
    })
    .optional()
    .catch(undefined),
});
export type OSImageStream = z.infer<typeof OSImageStreamSchema>;
const IriRelease = z.looseObject({
  name: z.string(),
  image: z.string().optional().nullable().catch(null),
  conditions: tolerantList(Condition),
});
/** MachineConfigNode status.internalReleaseImage (gate NoRegistryClusterInstall); garbage reads as absent. */
const MachineConfigNodeIri = z
  .looseObject({ releases: tolerantList(IriRelease) })
  .optional()
  .catch(undefined);

export const MachineConfigNodeSchema = object({
  spec: z
    .looseObject({ node: z.looseObject({ name: z.string() }).optional(), pool: z.looseObject({ name: z.string() }).optional() })
    .optional(),
  status: z
    .looseObject({
      conditions: z.array(Condition).default([]),
      pinnedImageSets: z
        .array(
          z.looseObject({
            name: z.string(),
            currentGeneration: z.number().optional(),
            desiredGeneration: z.number().optional(),
            lastFailedGeneration: z.number().optional(),
            lastFailedGenerationError: z.string().optional(),
          }),
        )
        .optional(),
      internalReleaseImage: MachineConfigNodeIri,
    })
    .optional(),
});
export const PinnedImageSetSchema = object({
  spec: z.looseObject({ pinnedImages: z.array(z.looseObject({ name: z.string() })).default([]) }),
});
export const MachineConfigSchema = object({ spec: z.looseObject({}).optional() });
export const NodeSchema = object({
  status: z.looseObject({ nodeInfo: z.looseObject({}).optional(), allocatable: z.record(z.string(), z.string()).optional() }).optional(),
});
export const MachineOSConfigSchema = object({
  spec: z.looseObject({ machineConfigPool: z.looseObject({ name: z.string() }) }),
  status: z.looseObject({}).optional(),
});
export const MachineOSBuildSchema = object({ status: z.looseObject({ conditions: z.array(Condition).default([]) }).optional() });
/** metal3.io Provisioning: only the OS download URL matters (the legacy provisioning path, docs/openshift.md §16.1). */
export const ProvisioningSchema = object({
  spec: z.looseObject({ provisioningOSDownloadURL: z.string().optional().nullable() }).optional(),
});
/**
 * The InternalReleaseImage singleton `cluster` (openshift/api machineconfiguration/v1
 * types_internalreleaseimage.go): spec.releases names the bundles asked for, status.releases the
 * bundles the cluster holds, status.conditions has only Degraded.
 */
export const InternalReleaseImageSchema = object({
  spec: z
    .looseObject({ releases: tolerantList(z.looseObject({ name: z.string() })) })
    .optional()
    .catch(undefined),
  status: z
    .looseObject({ conditions: tolerantList(Condition), releases: tolerantList(IriRelease) })
    .optional()
    .catch(undefined),
});

const Container = z.looseObject({ name: z.string(), image: z.string().optional(), imagePullPolicy: z.string().optional() });
export const PodSchema = object({
  spec: z
    .looseObject({
      nodeName: z.string().optional(),
      containers: z.array(Container).default([]),
      initContainers: z.array(Container).optional(),
    })
    .optional(),
  status: z.looseObject({ phase: z.string().optional() }).optional(),
});

export type ClusterVersion = z.infer<typeof ClusterVersionSchema>;
export type MachineSet = z.infer<typeof MachineSetSchema>;
export type ConfigMap = z.infer<typeof ConfigMapSchema>;
export type MachineConfigNode = z.infer<typeof MachineConfigNodeSchema>;
export type Pod = z.infer<typeof PodSchema>;
export type InternalReleaseImage = z.infer<typeof InternalReleaseImageSchema>;

/**
 * The Prometheus HTTP API answer of GET /api/v1/alerts (as the Thanos querier serves it; openshift/oc
 * pkg/cli/admin/upgrade/status/alerts.go AlertData): labels and annotations are free-form strings.
 */
export const AlertsAnswerSchema = z.looseObject({
  status: z.string().optional(),
  data: z.looseObject({
    alerts: z.array(
      z.looseObject({
        labels: z.record(z.string(), z.unknown()).optional().nullable(),
        annotations: z.record(z.string(), z.unknown()).optional().nullable(),
        state: z.string().optional().nullable(),
      }),
    ),
  }),
});
