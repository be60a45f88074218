import { useMutation, useQuery } from '@tanstack/react-query';
import { bulkUploadPath, type BulkUpload, type BulkUploadForm, type BulkUploadStartRequest } from '@shared/schemas/bulk-upload';
import { ApiError, apiDownload, apiRequest, serverMessageOf } from '../../../lib/api-client';
import { jobPollInterval } from '../../../lib/job-polling';
import { saveFile } from '../../../lib/save-file';
import { toaster } from '../../../lib/toaster';

/** Bytes of the file sent so far, for the upload's progress bar. */
export interface UploadProgress {
  loaded: number;
  total: number;
}

export const UPLOAD_FAILED = 'The file could not be uploaded. Check your connection and try again.';

/**
 * The file straight to the bucket through the presigned POST the server signed. XMLHttpRequest,
 * not fetch: only it reports the upload's bytes as they go (the bucket's CORS rule admits it).
 */
export function postFile(form: BulkUploadForm, file: Blob, onProgress: (progress: UploadProgress) => void): Promise<void> {
  const data = new FormData();
  for (const [name, value] of Object.entries(form.fields)) data.append(name, value);
  data.append('file', file, 'people.csv');
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', form.url);
    request.upload.onprogress = (event) => onProgress({ loaded: event.loaded, total: event.lengthComputable ? event.total : file.size });
    request.onload = () => (request.status >= 200 && request.status < 300 ? resolve() : reject(new ApiError(request.status, `${request.status}: ${UPLOAD_FAILED}`, UPLOAD_FAILED)));
    request.onerror = () => reject(new ApiError(0, UPLOAD_FAILED, UPLOAD_FAILED));
    request.send(data);
  });
}

/** Starts the reading of an uploaded file (or only its check): 202 with the upload's state. */
export const startUpload = (id: string, body: BulkUploadStartRequest) => apiRequest<BulkUpload>(`${bulkUploadPath(id)}/start`, { method: 'POST', body });

const toastFailure = (error: Error) => {
  if (error.message.startsWith('401')) return; // the logged-out toast is already showing
  toaster.create({
    type: 'error',
    title: 'Error creating accounts',
    description: serverMessageOf(error, [400, 403, 409, 413]) ?? (error instanceof ApiError && error.serverMessage === UPLOAD_FAILED ? UPLOAD_FAILED : 'Failed to upload the file. Please try again.'),
  });
};

/** A new upload: the form, the file sent with its progress, then the reading started. */
export function useUploadMutation() {
  return useMutation({
    mutationFn: async ({ file, request, onProgress }: { file: Blob; request: BulkUploadStartRequest; onProgress: (progress: UploadProgress) => void }) => {
      const form = await apiRequest<BulkUploadForm>('/api/bulk-uploads', { method: 'POST' });
      await postFile(form, file, onProgress);
      return startUpload(form.id, request);
    },
    onError: toastFailure,
  });
}

/** A checked file started again, this time to create its accounts. */
export function useStartUploadMutation() {
  return useMutation({ mutationFn: ({ id, request }: { id: string; request: BulkUploadStartRequest }) => startUpload(id, request), onError: toastFailure });
}

const isSettled = (upload: BulkUpload | undefined) => upload?.status === 'checked' || upload?.status === 'queued' || upload?.status === 'failed';

/** GET /api/bulk-uploads/{id} while the file is read (rows read), until it is checked, queued or failed. */
export function useBulkUploadQuery(started: BulkUpload | undefined) {
  return useQuery({
    queryKey: ['bulk-upload', started?.id ?? '', started?.updatedAt ?? ''],
    queryFn: () => apiRequest<BulkUpload>(bulkUploadPath(started!.id)),
    enabled: !!started,
    initialData: started,
    refetchInterval: (query) => (isSettled(query.state.data) ? false : jobPollInterval(query.state.dataUpdateCount)),
    refetchIntervalInBackground: true,
    retry: 3,
  });
}

/** The rows a 'check first' found that cannot be created, as the server kept them. */
export function useUploadReportDownload() {
  return useMutation({
    mutationFn: async ({ url, name }: { url: string; name: string }) => {
      const { blob, filename } = await apiDownload(url);
      saveFile(blob, filename ?? `${name}_rejected_rows.csv`);
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return;
      toaster.create({ type: 'error', title: 'Download failed', description: serverMessageOf(error) ?? 'Failed to download the rejected rows.' });
    },
  });
}
