import { useEffect, useRef, useState } from 'react';
import type { Schemas } from '../../app/api';

type Step = Pick<Schemas['FlowStep'], 'type' | 'targetSelector' | 'content' | 'settings'>;

const TARGETED = new Set(['TOOLTIP', 'BEACON', 'CLICK', 'INPUT', 'SCROLL']);

/**
 * A live preview of one step, rendered by the browser SDK itself in an iframe (public/preview.js
 * answers the SDK's calls from the draft). A new iframe per change (debounced): a clean SDK each time.
 */
export function StepPreview({ flowName, step }: { flowName: string; step: Step | undefined }) {
  const [version, setVersion] = useState(0);
  const payload = JSON.stringify({ flowName, step });
  const latest = useRef(payload);
  latest.current = payload;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new iframe each time the payload changes
  useEffect(() => {
    const t = setTimeout(() => setVersion((v) => v + 1), 350);
    return () => clearTimeout(t);
  }, [payload]);
  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (e.origin !== location.origin || e.data?.type !== 'guidance-preview-ready') return;
      const { flowName: name, step: s } = JSON.parse(latest.current) as { flowName: string; step?: Step };
      if (!s) return;
      const now = new Date().toISOString();
      const flow = {
        id: '00000000-0000-4000-8000-00000000f10e',
        name: name || 'Preview',
        description: null,
        template: 'CUSTOM',
        status: 'PUBLISHED',
        tenantId: '00000000-0000-4000-8000-000000000000',
        siteId: '00000000-0000-4000-8000-000000000000',
        audienceId: null,
        trigger: { type: 'MANUAL', config: {} },
        scheduledAt: null,
        priority: 0,
        bypassCaps: false,
        expiresAt: null,
        createdAt: now,
        updatedAt: now,
        settings: {},
        publishedAt: now,
        archivedAt: null,
        steps: [
          {
            id: '00000000-0000-4000-8000-0000000057e9',
            flowId: '00000000-0000-4000-8000-00000000f10e',
            tenantId: '00000000-0000-4000-8000-000000000000',
            type: s.type,
            order: 0,
            // the preview page has one target element: every targeted step points at it
            targetSelector: TARGETED.has(s.type)
              ? s.type === 'INPUT'
                ? '#preview-input'
                : '#preview-target'
              : null,
            targetFingerprint: null,
            content: s.content,
            settings: { ...s.settings, auto: false },
            createdAt: now,
            updatedAt: now,
          },
        ],
      } satisfies Schemas['Flow'];
      (e.source as Window | null)?.postMessage({ type: 'guidance-preview', flow }, location.origin);
    };
    addEventListener('message', onMessage);
    return () => removeEventListener('message', onMessage);
  }, []);
  if (!step) return <div className="preview-empty muted">Select a step to preview it.</div>;
  return (
    <iframe key={version} className="preview-frame" title="Live preview of the step" src="/preview.html" />
  );
}
